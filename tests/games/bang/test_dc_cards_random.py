"""Random Dodge City games through legal actions only: every listed action applies, the 120
cards are always all somewhere, every event and view projects and encodes for every seat, and
in phase 2 every play or use built from the cards in sight (card x target x pick) is accepted
exactly when ``legal_actions`` lists it (the listing is complete).

A smoke test for the card handlers (the full conformance run belongs to the expansion's
conformance suite): a crash, a lost card or an action listed but refused fails it.
"""

from __future__ import annotations

import json
import random

import pytest

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import codec
from tabletop_server.service.games.bang.actions import check
from tabletop_server.service.games.bang.state import all_cards
from tests.volume import volumes

pytestmark = pytest.mark.usefixtures("dodge_city")
MAX_ACTIONS = 3000


@pytest.mark.parametrize("games", volumes(3, 30))
def test_random_dodge_city_games_keep_every_card_and_end(games: int) -> None:
    for game in range(games):
        rnd = random.Random(game)
        n = 4 + game % 4
        st = bang.setup({"expansions": ["dodge_city"]}, n, game)
        for _ in range(MAX_ACTIONS):
            if st["phase"] == "over":
                break
            seat = bang.to_act(st)[0]
            legal = bang.legal_actions(st, seat)
            if not st["pending"]:
                check_listing_is_complete(st, seat, legal)
            action = rnd.choice(legal)
            assert codec.decode_action(codec.encode_action(action)) == action
            events = bang.apply(st, seat, action)
            for viewer in range(n):
                for event in events:
                    codec.encode_event(bang.project(event, viewer))
                bang.view(st, viewer)
            assert len(all_cards(st)) == 120 and len(set(all_cards(st))) == 120
            st = json.loads(json.dumps(st))
        assert st["phase"] == "over", f"game {game} did not end"


def check_listing_is_complete(state: State, seat: int, legal: list[Action]) -> None:
    """Every play or use built from the cards in sight is accepted exactly when it is listed."""
    p = state["p"][seat]
    targets: list[int | None] = [None, *range(len(state["p"]))]
    for kind, cards in (("play", p["hand"]), ("use", p["table"])):
        for card in cards:
            for target in targets:
                picks: list[str | None] = [None]
                if target is not None:
                    picks += ["hand", *state["p"][target]["table"]]
                for pick in picks:
                    action: Action = {"type": kind, "card": card}
                    if target is not None:
                        action["target"] = target
                    if pick is not None:
                        action["pick"] = pick
                    try:
                        check(state, seat, action)
                        accepted = True
                    except RuleError:
                        accepted = False
                    assert accepted == (action in legal), action
