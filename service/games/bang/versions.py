"""The rules versions of BANG!: the one games are created with and the ones this code plays.

Kept apart so that a test (or a replica of another release) is one attribute away:
``actions.check_rules_version`` reads ``SUPPORTED_RULES_VERSIONS`` at every call.
"""

from __future__ import annotations

RULES_VERSION = "bang-base-1"
# The rules versions this code plays: games store the version they were created with
# (``state["v"]``), and a game of any other version is refused (``RULES_VERSION_UNSUPPORTED``),
# so that a replica of a rolling upgrade never applies rules the game was not created with.
# A rules change that alters play releases a new RULES_VERSION and keeps the old one here
# for as long as the code still plays it (see docs/bang.md "Rules versions").
# Armed & Dangerous games are stored with a version of their own: a replica of a release before the
# expansion (which plays only ``bang-base-1``) refuses them (RULES_VERSION_UNSUPPORTED: the client
# retries on another replica) instead of failing on cards and state it does not know.
ARMED_RULES_VERSION = "bang-ad-1"
SUPPORTED_RULES_VERSIONS: frozenset[str] = frozenset({RULES_VERSION, ARMED_RULES_VERSION})
