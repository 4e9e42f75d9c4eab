"""Hidden information over whole games (TTR-012): no view and no projected event depends on a secret.

A secret is anything a seat may not see: other seats' hand colours, their kept and offered
tickets, the order of the deck and of the ticket pile, the discard pile's contents, the box and
the generator. The tests rewrite every secret a viewer may not see (keeping every count) and
require the viewer's view and projected events to stay byte-for-byte the same, at every step of
several random games, in every phase (initial ticket choice, play, pending tunnel, pending ticket
choice, last round). The finished state is left out: final scoring reveals every ticket on purpose.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from ttr_helpers import ticket_ids_in

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.rng import Rng
from tabletop_server.service.games.ttr_europe import codec

State = dict[str, Any]
Event = dict[str, Any]

# Every event kind, with the keys only the acting seat may see. A new kind fails
# test_every_event_kind_is_classified until someone decides what it hides.
SECRET_KEYS: dict[str, tuple[str, ...]] = {
    "card_drawn": ("card",),  # blind draws only; a face-up card was public before it was taken
    "tickets_drawn": ("tickets",),
    "tickets_kept": ("tickets",),
}
PUBLIC_KINDS = {"face_up", "reshuffled", "route_claimed", "station_built", "tunnel_revealed",
                "tunnel_withdrawn", "turn_started", "last_round", "passed", "game_scored"}


def scramble_secrets(state: State, viewer: int | None, rng: Rng) -> State:
    """A copy in which every secret ``viewer`` may not see is redealt, every count kept."""
    other: State = json.loads(json.dumps(state))
    others = [s for s in range(other["n"]) if s != viewer]
    # Train cards: other hands, the deck and the discard pile share one shuffled pool.
    pool = list(other["deck"]) + list(other["discard"])
    for seat in others:
        pool += [code for code, count in enumerate(other["hands"][seat]) for _ in range(count)]
    rng.shuffle(pool)
    for seat in others:
        size = sum(other["hands"][seat])
        other["hands"][seat] = [0] * 9
        for card in pool[:size]:
            other["hands"][seat][card] += 1
        del pool[:size]
    other["deck"] = pool[:len(other["deck"])]
    other["discard"] = pool[len(other["deck"]):]
    # Tickets: other seats' kept and offered tickets, the pile and the box share one pool.
    places = [other["ticket_pile"], other["box"]] + [other[k][s] for s in others for k in ("tickets", "offered")]
    tickets = [t for place in places for t in place]
    rng.shuffle(tickets)
    for place in places:
        size = len(place)
        place[:] = tickets[:size]
        del tickets[:size]
    other["rng"] = _rekey(other["rng"])
    return other


def _rekey(generator: Any) -> Any:
    """Another generator state of the same kind: what comes after a redeal differs too."""
    if isinstance(generator, list):  # SHAKE-256 (rules version 2): another key, the same counter
        return [hashlib.sha256(bytes.fromhex(generator[0])).hexdigest(), generator[1]]
    return (generator * 6364136223846793005 + 1442695040888963407) % (1 << 64)  # SplitMix64 (version 1)


@pytest.mark.rule("TTR-012")
def test_every_event_kind_is_classified() -> None:
    assert set(codec._ENCODERS) == set(SECRET_KEYS) | PUBLIC_KINDS
    assert not set(SECRET_KEYS) & PUBLIC_KINDS


def _events_leak_nothing(events: list[Event], seats: int) -> None:
    """Each projected event is the same whatever its secret values were, for every non-actor."""
    for event in events:
        for viewer in [*range(seats), None]:
            if event.get("seat") == viewer:
                continue
            projected = ttr.project(event, viewer)
            assert projected is not None
            keys = SECRET_KEYS.get(event["type"], ())
            if event["type"] == "card_drawn" and event["slot"] is not None:
                keys = ()
            changed = dict(event)
            for key in keys:
                changed[key] = "other" if key == "card" else [999]
            assert ttr.project(changed, viewer) == projected, (event, viewer)
            for key in keys:
                assert not projected[key], (event, viewer)
            assert not ticket_ids_in(ttr.encode_event(projected)) or event["type"] == "game_scored"


@pytest.mark.rule("TTR-012")
@pytest.mark.parametrize("seed, seats, version", [  # the 4- and 5-seat games (the longest) in the slow tier
    (21, 2, None), (22, 3, None), pytest.param(23, 4, None, marks=pytest.mark.slow),
    pytest.param(24, 5, None, marks=pytest.mark.slow), (25, 3, None), (26, 3, "ttr-europe/2005-official.1")])  # and SplitMix64
def test_nothing_secret_reaches_another_seat(seed: int, seats: int, version: str | None) -> None:
    state = ttr.setup({"tunnel_failure_discards": False}, seats, seed, version)
    bot, scrambler = Rng({"rng": seed}), Rng({"rng": seed + 1})
    changed_own = 0
    phases: set[str] = set()
    while not ttr.is_over(state):
        pending = state["phase"] != "tickets" and any(state["offered"])
        phases.add("tunnel" if state["tunnel"] else "offered" if pending else state["phase"])
        for viewer in [*range(seats), None]:
            view = ttr.view(state, viewer).SerializeToString(deterministic=True)
            scrambled = scramble_secrets(state, viewer, scrambler)
            assert ttr.view(scrambled, viewer).SerializeToString(deterministic=True) == view, viewer
            mine = set(state["tickets"][viewer] + state["offered"][viewer]) if viewer is not None else set()
            assert ticket_ids_in(ttr.view(state, viewer)) == mine
            if viewer is not None:
                # The check can fail: the same scrambling applied to everything changes a seat's own view.
                everything = scramble_secrets(state, None, scrambler)
                changed_own += ttr.view(everything, viewer).SerializeToString(deterministic=True) != view
        seat = bot.choice(ttr.to_act(state))
        actions = ttr.legal_actions(state, seat)
        claims = [a for a in actions if a["kind"] in ("claim_route", "pay_tunnel")]
        action = bot.choice(claims) if claims and bot.below(3) else bot.choice(actions)
        _events_leak_nothing(ttr.apply(state, seat, action), seats)
    assert changed_own > 0
    assert {"tickets", "play", "offered", "tunnel"} <= phases
