"""Ticket to Ride in the browser, issue 31's small defects: a finished game names its winner above the final
scores (from the view's ``winners`` and ``final_scores``).

Two seats are created and joined in the browser and the game is played to its end over gRPC with their
tokens; at the end both pages show the winner line.
"""

from __future__ import annotations

import random
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer
from tests.web.seats import Seat, create_in_lobby, join_by_link


def test_a_finished_game_names_its_winner(browser: Any, web_url: str, stub: Any) -> None:
    ann, bob = Seat(browser, web_url), Seat(browser, web_url)
    try:
        name = create_in_lobby(ann, "ttr-europe", 2, "ann")
        join_by_link(bob, ann.page.get_by_test_id("share-link").input_value(), "bob")
        tokens = {0: ann.token(name), 1: bob.token(name)}
        rng = random.Random(31)
        for _ in range(3000):
            reply = stub.GetGame(svc.GetGameRequest(name=name))
            view = reply.view.ttr_europe
            if view.phase == 4:  # TTR_PHASE_FINISHED
                break
            seat = rng.choice(list(view.awaiting_seats))
            actions = list(stub.ListLegalActions(svc.ListLegalActionsRequest(name=name),
                                                 metadata=bearer(tokens[seat])).actions)
            claims = [a for a in actions if a.ttr_europe.WhichOneof("kind") in ("claim_route", "pay_tunnel")]
            action = rng.choice(claims) if claims and rng.random() < 0.7 else rng.choice(actions)
            stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action), metadata=bearer(tokens[seat]))
        final = stub.GetGame(svc.GetGameRequest(name=name))
        view = final.view.ttr_europe
        assert view.phase == 4 and list(view.winners)
        names = {0: "ann", 1: "bob"}
        winners = [names[s] for s in view.winners]
        total = next(s.total for s in view.final_scores if s.seat == view.winners[0])
        expected = (f"{winners[0]} wins" if len(winners) == 1 else f"{' and '.join(winners)} share the win") + \
            f" with {total} points"
        for page in (ann, bob):
            page.wait_for_version(final.game.version)
            assert page.page.get_by_test_id("winner").inner_text() == expected
        for page in (ann, bob):
            assert not page.errors, page.errors
    finally:
        ann.close()
        bob.close()

