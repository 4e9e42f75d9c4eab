"""Ticket to Ride: Europe (Days of Wonder, 2005), 2 to 5 players, as the official rules play.

The ruleset contract (``service/engine/ruleset.py``) for id ``ttr-europe``. Pure rules:
no I/O, no clock, no global random. The modules follow the rulebook: ``board``
(data), ``setup``, ``turns``, ``draw``, ``claim``, ``tunnels``, ``stations``,
``tickets``, ``scoring``; ``actions`` ties the checks to ``apply`` and
``legal_actions``; ``view``, ``codec`` and ``catalog_codec`` (the static board, for GetRuleset)
are the only ways out. Interpretations are
listed in ``docs/ttr_europe.md``.
"""

from __future__ import annotations

from tabletop_server.service.engine.registry import register
from tabletop_server.service.engine.ruleset import OptionInfo, RulesetInfo
from tabletop_server.service.games.ttr_europe.actions import apply, legal_actions
from tabletop_server.service.games.ttr_europe.bots import BOTS
from tabletop_server.service.games.ttr_europe.catalog_codec import encode_catalog
from tabletop_server.service.games.ttr_europe.codec import (
    decode_action,
    decode_options,
    encode_action,
    encode_event,
    encode_options,
)
from tabletop_server.service.games.ttr_europe.concede import concede
from tabletop_server.service.games.ttr_europe.scoring import standings
from tabletop_server.service.games.ttr_europe.setup import RULES_VERSION, rules_version, setup
from tabletop_server.service.games.ttr_europe.turns import is_over, to_act
from tabletop_server.service.games.ttr_europe.view import project, view

INFO = RulesetInfo(
    id="ttr-europe",
    display_name="Ticket to Ride: Europe",
    min_seats=2,
    max_seats=5,
    rules_version=RULES_VERSION,
    proto_field="ttr_europe",
    max_actions=1_500,  # random bots end every game within 487 actions (400 seeds); about 3x that
    options=(
        OptionInfo(
            name="tunnel_failure_discards",
            description="House rule: when a player does not pay for a tunnel, the cards he played for it "
                        "are discarded; by the official rule they go back to his hand.",
            default="false",
            allowed_values=("false", "true"),
        ),
    ),
)

__all__ = [
    "BOTS", "INFO", "apply", "concede", "decode_action", "decode_options", "encode_action", "encode_catalog", "encode_event", "encode_options",
    "is_over", "legal_actions", "project", "rules_version", "setup", "standings", "to_act", "view",
]

# Offered by the server, listed first (service/engine/registry.py).
register(__name__, listed=1)
