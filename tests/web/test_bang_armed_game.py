"""An Armed & Dangerous BANG! game played through the web client: four players, each in his own browser
context (one creates it in the lobby with the expansion ticked, three join by its link), and a spectator,
for 60 clicked actions.

After every action each page must reach the new version by itself (WatchGame), and then:
- the cube supply, the cubes on each character and on each orange card in play are shown exactly as the
  view holds them, and they total 32 (the supply and every holder, docs/bang.md, AD-002);
- no action is worded "unknown action", and every pending request, on every page, is shown as a question
  of its own kind with its text (never the generic "must decide");
- a click that put cubes on or took them off a holder still in play has its CUBES event in the live feed
  ("+1 cube on character (recharge)").
The clicks are random among the listed actions, weighted away from ending the turn and passing so that the
cards (and their upgrades, weapons and cubes) get played.
"""

from __future__ import annotations

import random
import re
from typing import Any

from tabletop.v1 import bang_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer
from tests.web.seats import Seat, create_in_lobby, join_by_link, screenshot

ACTIONS = 60
SEATS = 4
CUBES = 32
ARMED = "BANG_EXPANSION_ARMED_AND_DANGEROUS"
CUBE_LINE = re.compile(r"[+\-−]\d+ cubes? (on|off) ")
# Lower weights for the buttons that end a turn or decline: the game then plays its cards.
WEIGHTS = {"endTurn": 1, "pass": 2}


def test_four_players_and_a_spectator_play_armed_and_dangerous_in_the_browser(browser: Any, web_url: str,
                                                                               stub: Any) -> None:
    pages = [Seat(browser, web_url) for _ in range(SEATS + 1)]
    players, watcher = pages[:SEATS], pages[SEATS]
    try:
        name = create_in_lobby(players[0], "bang", SEATS, "ann", checks=(ARMED,))
        link = players[0].page.get_by_test_id("share-link").input_value()
        for i, page in enumerate(players[1:], start=1):
            join_by_link(page, link, f"player{i}")
        watcher.page.goto(link)
        watcher.page.get_by_test_id("spectator").wait_for()
        tokens = {}
        for page in players:
            token = page.token(name)
            tokens[int(token.split(".")[1])] = (token, page)
        assert sorted(tokens) == list(range(SEATS))
        rng = random.Random(14)
        before: dict[Any, int] | None = None
        asked: set[str] = set()
        clicked: set[str] = set()
        for _ in range(ACTIONS):
            game = stub.GetGame(svc.GetGameRequest(name=name)).game
            if game.status == 3:  # finished
                break
            for page in pages:
                page.wait_for_version(game.version)
            views = {s: stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(t)).view.bang
                     for s, (t, _) in tokens.items()}
            legal = {s: stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(t)).actions
                     for s, (t, _) in tokens.items()}
            public = views[0]
            assert public.HasField("cube_supply")
            for page in pages:
                _check_cubes(page, public)
                _check_words(page, public)
            holders = _holders(public)
            if before is not None and any(before.get(h) != n for h, n in holders.items()):
                feed = watcher.page.get_by_test_id("feed").inner_text()
                assert CUBE_LINE.search(feed), f"cubes moved but the feed has no cube line:\n{feed}"
            before = holders
            if public.pending:
                asked.add(bang_pb2.BangRequestKind.Name(public.pending[-1].kind))
            acting = next(s for s in tokens if legal[s])
            mover = tokens[acting][1]
            assert mover.page.locator("[data-testid=action]").count() == len(legal[acting])
            buttons = mover.page.locator("[data-testid=action]").all()
            kinds = [str(b.get_attribute("data-kind")) for b in buttons]
            if public.pending and public.pending[-1].kind == bang_pb2.BANG_REQUEST_KIND_PLACE_CUBES and "pass" in kinds:
                # A recharge cube is the player's (AD-009, AD-011): declined in the rulebook's words.
                assert buttons[kinds.index("pass")].inner_text().strip() == "Don't add"
                asked.add("PLACE_CUBES (may decline)")
            index = rng.choices(range(len(buttons)), weights=[WEIGHTS.get(k, 6) for k in kinds])[0]
            clicked.add(kinds[index])
            mover.click_action(buttons[index])
            mover.wait_past(game.version)
            assert mover.page.get_by_test_id("message").inner_text() == ""  # every click was accepted
        print(f"requests asked: {sorted(asked)}; actions clicked: {sorted(clicked)}")
        assert "PLACE_CUBES (may decline)" in asked  # a recharge cube was offered with "Don't add" (AD-009)
        screenshot(players[0], "web_bang_armed.png")
        for page in pages:
            assert not page.errors, page.errors
    finally:
        for page in pages:
            page.close()


def _cubes(view: Any) -> tuple[Any, ...]:
    """Every holder's cubes: the supply, then (seat, "character" or card id, cubes) sorted."""
    holders = sorted([(p.seat, "character", p.cubes) for p in view.players]
                     + [(p.seat, c.card_id, c.cubes) for p in view.players for c in p.card_cubes])
    return (view.cube_supply, *holders)


def _holders(view: Any) -> dict[Any, int]:
    """The cubes on each holder in play: a character by seat, an orange card by id (a passed Bomb is the
    same holder). A card that left play is not there: its cubes went back with no CUBES event of their own
    (the card's discard or take event says it)."""
    holders: dict[Any, int] = {p.seat: p.cubes for p in view.players}
    holders.update({c.card_id: c.cubes for p in view.players for c in p.card_cubes})
    return holders


def _check_cubes(seat: Seat, view: Any) -> None:
    """The page shows the supply and each holder's cubes as the view holds them, 32 in all."""
    page = seat.page
    supply = page.get_by_test_id("cube-supply")
    assert supply.count() == 1
    assert int(supply.get_attribute("data-cubes") or -1) == view.cube_supply
    assert str(view.cube_supply) in supply.inner_text()
    shown = page.locator("[data-testid=table] [data-testid$=-cubes]").evaluate_all(
        "els => els.map(e => [Number(e.closest('[data-seat]').dataset.seat),"
        " e.dataset.testid === 'character-cubes' ? 'character' : e.closest('[data-card]').dataset.card,"
        " Number(e.dataset.cubes)])")
    expected = [list(h) for h in _cubes(view)[1:]]
    assert sorted(shown) == expected
    assert view.cube_supply + sum(h[2] for h in shown) == CUBES


def _check_words(seat: Seat, view: Any) -> None:
    """No action without words, and the pending request asked as a question of its kind."""
    page = seat.page
    assert "unknown action" not in page.content()
    question = page.get_by_test_id("question")
    if not view.pending:
        assert question.count() == 0
        return
    assert question.count() == 1
    top = view.pending[-1]
    assert question.get_attribute("data-kind") == bang_pb2.BangRequestKind.Name(top.kind).removeprefix("BANG_REQUEST_KIND_")
    text = question.locator("h3").inner_text().strip()
    assert text and "must decide" not in text, text
