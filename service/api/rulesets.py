"""GetRuleset: one ruleset with its catalog and a strong etag, the same for every caller.

The catalog is whatever the ruleset's optional ``encode_catalog()`` returns (the contract in
``service.engine.ruleset``); this module knows nothing of any game. A catalog changes only with a
release, so each response is built once per process and kept. Its etag is a hash of the response's
own bytes (the ``Ruleset``, with its rules version, and the catalog, serialized deterministically),
so every replica of a release computes the same one and any change to either changes it; REST
sends it as the ``ETag`` header and answers ``If-None-Match`` with 304 (``rest.handlers``).
"""

from __future__ import annotations

import hashlib
from functools import cache

from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import convert
from tabletop_server.service.api.errors import NotFound, ServiceReason
from tabletop_server.service.engine import registry
from tabletop_server.service.engine.ruleset import Ruleset

PREFIX = "rulesets/"


def get(name: str) -> svc.GetRulesetResponse:
    """The response for a ruleset name that ``field_rules`` has checked (``rulesets/<id>``).

    The same message for every call: the caller serializes it and must not change it."""
    ruleset_id = name.removeprefix(PREFIX)
    ruleset = registry.get(ruleset_id)
    if ruleset is None:
        offered = ", ".join(PREFIX + r.INFO.id for r in registry.all_rulesets())
        raise NotFound(ServiceReason.RULESET_NOT_FOUND, f"No ruleset {name}; offered: {offered} (ListRulesets).")
    return _response(ruleset.INFO.id)


def build(ruleset: Ruleset) -> svc.GetRulesetResponse:
    """The response of ``ruleset``, built afresh, with its etag."""
    response = svc.GetRulesetResponse(ruleset=convert.ruleset(ruleset.INFO))
    encode_catalog = getattr(ruleset, "encode_catalog", None)
    if encode_catalog is not None:
        getattr(response, ruleset.INFO.proto_field).CopyFrom(encode_catalog())
    response.etag = etag(response)
    return response


def etag(response: svc.GetRulesetResponse) -> str:
    """A strong, quoted etag (AIP-154, RFC 9110) of everything in ``response`` but its etag."""
    unsigned = svc.GetRulesetResponse()
    unsigned.CopyFrom(response)
    unsigned.ClearField("etag")
    digest = hashlib.sha256(unsigned.SerializeToString(deterministic=True)).hexdigest()
    return f'"{digest[:32]}"'  # 128 bits: collisions are out of reach, and the header stays short


# Helpers

@cache
def _response(ruleset_id: str) -> svc.GetRulesetResponse:
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None  # ``get`` looked it up first
    return build(ruleset)
