"""Seat names in the web client (issue 31): a bot's seat without a name of its own is called by its bot's
kind, numbered among the seats of that kind ("Basic bot 1", "Basic bot 2"), so two bots never share a name;
a person's name and a bot seat given a name are shown as they are."""

from __future__ import annotations

from typing import Any

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.web.seats import VERSION_WAIT_MS, Seat, wait_for_count


def test_unnamed_bot_seats_are_numbered_per_bot_kind(browser: Any, web_url: str, stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(
        ruleset="ttr-europe", seat_count=5, display_names=["ann"],
        bots=[game_pb2.SeatBot(seat=1, bot="basic"), game_pb2.SeatBot(seat=2, bot="random"),
              game_pb2.SeatBot(seat=3, bot="basic"), game_pb2.SeatBot(seat=4, bot="random")]))
    names = ["ann", "Basic bot 1", "Random bot 1", "Basic bot 2", "Random bot 2"]
    watcher = Seat(browser, web_url)
    try:
        page = watcher.page
        page.goto(f"{web_url}/#/games/{created.game.name.removeprefix('games/')}")
        page.get_by_test_id("spectator").wait_for(timeout=VERSION_WAIT_MS)
        page.locator("[data-testid=players] tr[data-seat]").first.wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("seat-chip").all_inner_texts() == names
        rows = page.locator("[data-testid=players] tr[data-seat] td:nth-child(2)").all_inner_texts()
        assert [row.split(" (")[0].removesuffix(" ◀ turn") for row in rows] == names
        assert not watcher.errors, watcher.errors
    finally:
        watcher.close()


def test_a_name_typed_into_the_join_form_survives_another_seat_joining(browser: Any, web_url: str, stub: Any) -> None:
    """The page is redrawn at every version: a name being typed must not be emptied when another seat joins
    meanwhile (the four-seat browser games' join links failed so under load: the join went out nameless)."""
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3, display_names=["ann"]))
    joiner = Seat(browser, web_url)
    try:
        page = joiner.page
        page.goto(f"{web_url}/#/games/{created.game.name.removeprefix('games/')}")
        page.locator(f"#app[data-version='{created.game.version}']").wait_for(timeout=VERSION_WAIT_MS)
        page.get_by_test_id("join-name").fill("cleo")
        joined = stub.JoinGame(svc.JoinGameRequest(name=created.game.name, display_name="bob"))
        page.locator(f"#app[data-version='{joined.game.version}']").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("join-name").input_value() == "cleo"
        page.get_by_test_id("join").click()
        page.get_by_test_id("seat").wait_for(timeout=VERSION_WAIT_MS)
        assert "cleo" in page.get_by_test_id("seat").inner_text()
        assert not joiner.errors, joiner.errors
    finally:
        joiner.close()


def test_the_join_form_sent_twice_takes_one_seat(browser: Any, web_url: str, stub: Any) -> None:
    """Join pressed twice while the first answer is on its way: one request id, so the second send is answered
    with the first's seat (JoinGame's request_id) instead of taking another seat or being refused."""
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3, display_names=["ann"]))
    joiner = Seat(browser, web_url)
    answers: list[Any] = []
    try:
        page = joiner.page
        joiner.context.on("response", lambda r: answers.append(r) if r.url.endswith("/JoinGame") else None)
        page.goto(f"{web_url}/#/games/{created.game.name.removeprefix('games/')}")
        page.locator(f"#app[data-version='{created.game.version}']").wait_for(timeout=VERSION_WAIT_MS)
        page.get_by_test_id("join-name").fill("cleo")
        page.locator("form.join").evaluate("(form) => { form.requestSubmit(); form.requestSubmit(); }")
        page.get_by_test_id("seat").wait_for(timeout=VERSION_WAIT_MS)
        wait_for_count(joiner, answers, 2)
        assert len(answers) == 2 and answers[0].body() == answers[1].body()
        game = stub.GetGame(svc.GetGameRequest(name=created.game.name)).game
        assert [s.display_name for s in game.seats if s.occupied] == ["ann", "cleo"]
        assert not joiner.errors, joiner.errors
    finally:
        joiner.close()
