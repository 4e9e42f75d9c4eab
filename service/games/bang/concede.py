"""Conceding (the ruleset's ``concede``, issue 15) and the options of a rematch (``rematch``).

A seat that concedes is eliminated with the usual reveal (``damage.eliminate``): its role is shown,
Vulture Sam takes its cards or they are discarded, and the winners are checked. The decision is
the service's (no rule of the game covers it; ``docs/bang.md``, "Conceding"):

- Nobody killed him, so no reward or penalty is paid (an Outlaw's 3 cards, the Sheriff's discard
  for a Deputy), except in the dying window: a player who concedes instead of drinking a Beer dies
  of the hit, and the player who hit him is the killer as usual.
- What he left open closes as the rules close it for a player eliminated meanwhile: a request he
  owes is dropped (a Bang! he does not answer is answered by nobody; a Duel ends, nobody is hit),
  cards held in it are not lost (Kit Carlson's three cards go with his hand; the General Store
  passes on to the next living player, or its rest is discarded when the round is over), and a
  card he had already played still resolves.
- If it was his turn, the turn passes to the next living player.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import EngineReason, RuleError
from tabletop_server.service.engine.ruleset import Options
from tabletop_server.service.games.bang.actions import advance, check_rules_version
from tabletop_server.service.games.bang.codec import decode_options, rematch_options
from tabletop_server.service.games.bang.damage import eliminate
from tabletop_server.service.games.bang.layout import Event, State
from tabletop_server.service.games.bang.pending import REQUESTS
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import player
from tabletop_server.service.games.bang.view import view

REMATCH_KEYS = ("kept_characters", "retired_characters", "sheriff_seat")


def concede(state: State, seat: int) -> list[Event]:
    """``seat`` leaves the game now, whoever is to decide; the events, as ``apply`` returns them."""
    check_rules_version(state)
    if state["phase"] == "over":
        raise RuleError(EngineReason.GAME_FINISHED, "The game is over")
    if not player(state, seat)["alive"]:
        raise RuleError(Reason.PLAYER_ELIMINATED, "You are out of the game already", seat=seat)
    events: list[Event] = []
    killer = None
    kept = []
    for req in state["pending"]:
        if req["kind"] == "dying" and req["seat"] == seat:
            killer = req["source"]
        forfeited = (req["seat"] is not None and req["kind"] in REQUESTS
                     and REQUESTS[req["kind"]].forfeit(state, req, seat))
        if not forfeited:
            kept.append(req)
    state["pending"][:] = kept
    eliminate(state, seat, killer, events)
    advance(state, events)
    return events


def rematch(state: State, options: Options) -> Options:
    """The options of the next game at this table: the same ones, with the rematch keys of this
    finished game (survivors keep their characters, the Sheriff passes on: ``codec.rematch_options``)."""
    fresh: dict[str, Any] = {k: v for k, v in options.items() if k not in REMATCH_KEYS}
    carried = decode_options(rematch_options(view(state, None)))
    fresh.update({k: carried[k] for k in REMATCH_KEYS if k in carried})
    return fresh
