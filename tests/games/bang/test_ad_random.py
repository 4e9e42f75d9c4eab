"""Random Armed & Dangerous games (alone and with Dodge City) through legal actions only.

Every listed action applies; the cards are always all somewhere; the 32 cubes are conserved
(supply + characters + cards) and no holder ever has more than 4 (AD-002, AD-013); every event
and view projects and encodes for every seat; in phase 2 every play or use built from the cards
in sight is accepted exactly when it is listed; and every answer to a pending request that the
request kind could take is accepted exactly when listed (the listing is complete, and a cube
payment is never multiplied out: it is asked as PAY_CUBES).

The conformance suite (``tests/conformance``) plays 1,000 games of each expansion set with
replays; this module is the rules' own check, with the invariants above after every action.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import strategies as st
from test_dc_cards_random import check_listing_is_complete

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import codec, cubes
from tabletop_server.service.games.bang.actions import check
from tabletop_server.service.games.bang.pending import REQUESTS
from tabletop_server.service.games.bang.state import all_cards
from tests.volume import run_examples, volumes

pytestmark = pytest.mark.usefixtures("armed")
MAX_ACTIONS = 3000
SETS = (["armed_and_dangerous"], ["dodge_city", "armed_and_dangerous"])


def seat_count(expansions: list[str], game: int) -> int:
    return 3 + game % 6 if "dodge_city" in expansions else 4 + game % 4


def check_cubes(state: State) -> None:
    """AD-002 and AD-013: 32 cubes in all, at most 4 on any character or card, cubes only on cards in play."""
    assert cubes.total(state) == cubes.SUPPLY and state["supply"] >= 0
    assert all(0 <= p.get("cubes", 0) <= cubes.MAX_ON_HOLDER for p in state["p"])
    in_play = {c for p in state["p"] for c in p["table"]}
    for card, mark in state.get("marks", {}).items():
        assert card in in_play and 0 < mark.get("cubes", 1) <= cubes.MAX_ON_HOLDER, (card, mark)


def check_answers_are_complete(state: State, seat: int, legal: list[Action]) -> None:
    """Every answer a pending request's kind takes, built from what is in sight, is accepted exactly when listed."""
    req = state["pending"][-1]
    answers = REQUESTS[req["kind"]].answers
    p = state["p"][seat]
    in_play = [c for q in state["p"] for c in q["table"]]
    candidates: list[Action] = [{"type": "pass"}, {"type": "upgrade"}]
    candidates += [{"type": "upgrade", "target": t} for t in range(len(state["p"]))]
    candidates += [{"type": "choose", "pick": h} for h in ["character", "hand", *in_play]]
    candidates += [{"type": "choose", "target": t} for t in range(len(state["p"]))]
    candidates += [{"type": k, "card": c} for k in ("respond", "discard") for c in p["hand"]]
    candidates += [{"type": "use", "card": c} for c in p["table"]]
    candidates += [{"type": "choose", "card": c} for c in req["args"].get("cards", []) + req["args"].get("flipped", [])]
    for action in candidates:
        if action["type"] not in answers:
            continue
        try:
            check(state, seat, action)
            accepted = True
        except RuleError:  # MalformedAction too: a wrong choose field for this kind is refused as well
            accepted = False
        assert accepted == (action in legal), (req["kind"], action)


def play_game(expansions: list[str], game: int, rnd: random.Random, complete: bool) -> State:
    n = seat_count(expansions, game)
    state = bang.setup({"expansions": expansions}, n, game)
    total = len(all_cards(state))
    check_cubes(state)
    for _ in range(MAX_ACTIONS):
        if state["phase"] == "over":
            break
        seat = bang.to_act(state)[0]
        legal = bang.legal_actions(state, seat)
        assert legal
        if complete:
            if state["pending"]:
                check_answers_are_complete(state, seat, legal)
            else:
                check_listing_is_complete(state, seat, legal)
        action = rnd.choice(legal)
        assert codec.decode_action(codec.encode_action(action)) == action
        events = bang.apply(state, seat, action)
        for viewer in [None, *range(n)]:
            for event in events:
                codec.encode_event(bang.project(event, viewer))
            bang.view(state, viewer)
        check_cubes(state)
        assert len(all_cards(state)) == total and len(set(all_cards(state))) == total
        state = json.loads(json.dumps(state))
    assert state["phase"] == "over", f"game {game} did not end"
    return state


@pytest.mark.rule("AD-002", "AD-013")
@pytest.mark.parametrize("games", volumes(2, 24))
@pytest.mark.parametrize("expansions", SETS, ids=lambda e: "+".join(e))
def test_random_games_conserve_cubes_and_list_every_legal_action(expansions: list[str], games: int) -> None:
    """The first half of the games also checks that every listed action is the whole of the legal ones."""
    for game in range(games):
        play_game(expansions, game, random.Random(game), complete=game < games // 2)


def cubes_are_conserved(seed: int, both: bool) -> None:
    """Hypothesis picks the deal and the moves: after every action the 32 cubes are all accounted for."""
    play_game(list(SETS[both]), seed, random.Random(seed), complete=False)


@pytest.mark.rule("AD-002", "AD-013")
@pytest.mark.parametrize("examples", volumes(3, 25))
def test_property_cubes_are_conserved_after_every_action(examples: int) -> None:
    run_examples(examples, cubes_are_conserved, seed=st.integers(0, 2**31 - 1), both=st.booleans())
