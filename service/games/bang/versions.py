"""The rules versions of BANG!: the one games are created with and the ones this code plays.

Kept apart so that a test (or a replica of another release) is one attribute away:
``actions.check_rules_version`` reads ``SUPPORTED_RULES_VERSIONS`` at every call.
"""

from __future__ import annotations

from tabletop_server.service.games.bang.layout import State

RULES_VERSION = "bang-base-2"
# The rules versions this code plays: games store the version they were created with
# (``state["v"]``), and a game of any other version is refused (``RULES_VERSION_UNSUPPORTED``),
# so that a replica of a rolling upgrade never applies rules the game was not created with.
# A rules change that alters play releases a new RULES_VERSION and keeps the old one here
# for as long as the code still plays it (see docs/bang.md "Rules versions").
# Armed & Dangerous games are stored with a version of their own: a replica of a release before the
# expansion (which plays only ``bang-base-1``) refuses them (RULES_VERSION_UNSUPPORTED: the client
# retries on another replica) instead of failing on cards and state it does not know.
# ``bang-ad-2`` (issue 32, RULINGS AD-009/011, AD-067): a recharge cube may be declined, and a green
# card used from play neither benefits from a paid Bell Tower nor spends it. ``bang-ad-1`` games
# keep the first readings (``first_ad_readings``).
# ``bang-base-2`` and ``bang-ad-3`` (issue 33): the rules of ``bang-base-1`` and ``bang-ad-2``, dealt from the
# SHAKE-256 generator keyed by a 256-bit seed (docs/fair-play.md); games stored at the earlier versions keep
# SplitMix64 (their state's generator) and replay exactly as they were dealt.
ARMED_RULES_VERSION_1 = "bang-ad-1"
ARMED_RULES_VERSION = "bang-ad-3"
SPLITMIX_RULES_VERSIONS: frozenset[str] = frozenset({"bang-base-1", ARMED_RULES_VERSION_1, "bang-ad-2"})
SUPPORTED_RULES_VERSIONS: frozenset[str] = frozenset({RULES_VERSION, ARMED_RULES_VERSION}) | SPLITMIX_RULES_VERSIONS


def first_ad_readings(state: State) -> bool:
    """An Armed & Dangerous game created before issue 32 (``bang-ad-1``): every recharge cube is
    placed, and a green card used from play is stretched by a paid Bell Tower and spends it."""
    return state.get("v") == ARMED_RULES_VERSION_1
