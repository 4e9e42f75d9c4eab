"""GetRuleset: one ruleset with its catalog and a strong etag, the same for every caller.

The catalog is whatever the ruleset's optional ``encode_catalog()`` returns (the contract in
``service.engine.ruleset``); this module knows nothing of any game. A catalog changes only with a
release, so each response is built once per process and kept. Its etag is a hash of the response's
own bytes (the ``Ruleset``, with its rules version, and the catalog, serialized deterministically),
so every replica of a release computes the same one and any change to either changes it; REST
sends it as the ``ETag`` header and answers ``If-None-Match`` with 304 (``rest.handlers``).

The catalog's names and texts come in the languages the ruleset has them in (its optional
``CATALOG_LANGUAGES`` and ``localize_catalog``): a request's ``language_code`` is matched by its primary
subtag ("cs-CZ" is "cs"), and anything else, or nothing, is English. Each language is its own response,
with its own etag, and says its language in ``language_code``.
"""

from __future__ import annotations

import hashlib
from functools import cache

from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import convert
from tabletop_server.service.api.errors import InvalidArgument, NotFound, ServiceReason
from tabletop_server.service.engine import registry
from tabletop_server.service.engine.errors import EngineReason
from tabletop_server.service.engine.ruleset import Ruleset

PREFIX = "rulesets/"


DEFAULT_LANGUAGE = "en"


def get(name: str, language_code: str = "") -> svc.GetRulesetResponse:
    """The response for a ruleset name and language code that ``field_rules`` have checked.

    The same message for every call: the caller serializes it and must not change it."""
    ruleset_id = name.removeprefix(PREFIX)
    ruleset = registry.get(ruleset_id)
    if ruleset is None:
        offered = ", ".join(PREFIX + r.INFO.id for r in registry.all_rulesets())
        raise NotFound(ServiceReason.RULESET_NOT_FOUND, f"No ruleset {name}; offered: {offered} (ListRulesets).")
    return _response(ruleset.INFO.id, language(ruleset, language_code))


def requested(ruleset_id: str) -> Ruleset:
    """The ruleset a new game or a quick-play ticket names (CreateGame, FindGame): INVALID_ARGUMENT
    ``UNKNOWN_RULESET`` on the ``ruleset`` field, listing the ones offered, for an id no game registered."""
    ruleset = registry.get(ruleset_id)
    if ruleset is None:
        offered = ", ".join(r.INFO.id for r in registry.all_rulesets())
        raise InvalidArgument(EngineReason.UNKNOWN_RULESET, f"Unknown ruleset {ruleset_id!r}; offered: {offered}.",
                              field="ruleset")
    return ruleset


def language(ruleset: Ruleset, language_code: str) -> str:
    """The language the catalog is given in for ``language_code``: its primary subtag when the ruleset
    has its words in it, else English."""
    primary = language_code.split("-", 1)[0].lower()
    return primary if primary in getattr(ruleset, "CATALOG_LANGUAGES", ()) else DEFAULT_LANGUAGE


def build(ruleset: Ruleset, language_code: str = DEFAULT_LANGUAGE) -> svc.GetRulesetResponse:
    """The response of ``ruleset`` in ``language_code`` (one ``language`` gave), built afresh, with its etag."""
    response = svc.GetRulesetResponse(ruleset=convert.ruleset(ruleset.INFO), language_code=language_code)
    encode_catalog = getattr(ruleset, "encode_catalog", None)
    if encode_catalog is not None:
        catalog = encode_catalog()
        if language_code != DEFAULT_LANGUAGE:
            catalog = ruleset.localize_catalog(catalog, language_code)  # type: ignore[attr-defined]
        getattr(response, ruleset.INFO.proto_field).CopyFrom(catalog)
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
def _response(ruleset_id: str, language_code: str) -> svc.GetRulesetResponse:
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None  # ``get`` looked it up first
    return build(ruleset, language_code)
