"""The lobby's form while a ruleset's catalog is on its way (found by the BANG! browser test in an idle run of the
whole suite at load 6: the game page never came). Picking a ruleset asks for its catalog (GetRuleset) to draw its
options and the seat counts it allows; a form sent before that answer came sent the new ruleset with the previous
ruleset's options, and the server refused the game. Here the browser holds BANG!'s catalog while the user picks BANG!,
chooses 4 seats and presses Create: the form must wait for the catalog and create the BANG! game it shows."""

from __future__ import annotations

from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tests.web.seats import Seat, wait_for_count


def test_create_waits_for_the_picked_rulesets_catalog(browser: Any, web_url: str, stub: Any) -> None:
    seat = Seat(browser, web_url)
    try:
        page = seat.page
        held = _hold_bang_catalog(seat)
        page.goto(f"{web_url}/")
        page.get_by_test_id("ruleset").select_option("bang")
        page.get_by_test_id("display-name").fill("ann")
        page.wait_for_timeout(200)
        assert held, "the page did not ask for BANG!'s catalog"
        create = page.get_by_test_id("create")
        assert create.is_disabled()  # nothing can be sent until the form shows BANG!'s options and seat counts
        held[0].continue_()
        page.get_by_test_id("seats").select_option("4")
        create.click()
        page.get_by_test_id("seat").wait_for(timeout=30_000)
        link = page.get_by_test_id("share-link").input_value()
        game = stub.GetGame(svc.GetGameRequest(name="games/" + link.rsplit("/", 1)[1])).game
        assert (game.ruleset, len(game.seats)) == ("bang", 4)
        assert page.get_by_test_id("create-error").count() == 0 and not seat.errors
    finally:
        seat.close()


def test_create_before_the_catalog_is_not_sent_with_the_previous_rulesets_options(browser: Any, web_url: str) -> None:
    """The click itself, at once: Playwright's click would wait for the button, so the form is sent by script."""
    seat = Seat(browser, web_url)
    created: list[Any] = []

    try:
        page = seat.page
        held = _hold_bang_catalog(seat)
        seat.context.on("request", lambda r: created.append(r) if r.url.endswith("/CreateGame") else None)
        page.goto(f"{web_url}/")
        page.get_by_test_id("ruleset").select_option("bang")
        page.get_by_test_id("display-name").fill("ann")
        page.wait_for_timeout(200)
        page.get_by_test_id("create-form").evaluate("(form) => form.requestSubmit()")
        page.wait_for_timeout(300)
        assert created == []  # not sent with Ticket to Ride's options
        held[0].continue_()
    finally:
        seat.close()


def test_the_form_sent_twice_makes_one_game(browser: Any, web_url: str) -> None:
    """A double click (or Enter twice) while the first answer is on its way: both sends carry one request id,
    and the server answers the second with the first's game (CreateGame's request_id), not a second game."""
    seat = Seat(browser, web_url)
    answers: list[Any] = []
    try:
        page = seat.page
        seat.context.on("response", lambda r: answers.append(r) if r.url.endswith("/CreateGame") else None)
        page.goto(f"{web_url}/")
        page.get_by_test_id("display-name").fill("ann")
        page.wait_for_function("() => !document.querySelector('[data-testid=create]').disabled")
        page.get_by_test_id("create-form").evaluate("(form) => { form.requestSubmit(); form.requestSubmit(); }")
        page.get_by_test_id("seat").wait_for(timeout=30_000)
        wait_for_count(seat, answers, 2)
        assert len(answers) == 2, "the form was sent twice"
        assert answers[0].body() == answers[1].body(), "one game, answered twice"
        assert page.get_by_test_id("create-error").count() == 0 and not seat.errors
    finally:
        seat.close()


def _hold_bang_catalog(seat: Seat) -> list[Any]:
    """The seat's first request for BANG!'s catalog, held (continue it to answer); every other GetRuleset goes on."""
    held: list[Any] = []

    def get_ruleset(route: Any) -> None:
        if b"rulesets/bang" in (route.request.post_data_buffer or b"") and not held:
            held.append(route)
        else:
            route.continue_()

    seat.context.route("**/tabletop.v1.GameService/GetRuleset", get_ruleset)
    return held
