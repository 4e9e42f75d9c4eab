"""Random Dodge City games through legal actions only: every listed action applies, the 120
cards are always all somewhere, and every event and view projects and encodes for every seat.

A smoke test for the card handlers (the full conformance run belongs to the expansion's
conformance suite): a crash, a lost card or an action listed but refused fails it.
"""

from __future__ import annotations

import json
import random

import pytest

from service.games import bang
from service.games.bang import codec
from service.games.bang.state import all_cards

pytestmark = pytest.mark.usefixtures("dodge_city")
GAMES = 30
MAX_ACTIONS = 3000


def test_random_dodge_city_games_keep_every_card_and_end() -> None:
    for game in range(GAMES):
        rnd = random.Random(game)
        n = 4 + game % 4
        st = bang.setup({"expansions": ["dodge_city"]}, n, game)
        for _ in range(MAX_ACTIONS):
            if st["phase"] == "over":
                break
            seat = bang.to_act(st)[0]
            action = rnd.choice(bang.legal_actions(st, seat))
            assert codec.decode_action(codec.encode_action(action)) == action
            events = bang.apply(st, seat, action)
            for viewer in range(n):
                for event in events:
                    codec.encode_event(bang.project(event, viewer))
                bang.view(st, viewer)
            assert len(all_cards(st)) == 120 and len(set(all_cards(st))) == 120
            st = json.loads(json.dumps(st))
        assert st["phase"] == "over", f"game {game} did not end"
