"""Board-first play (issue 31): the first tickets are check boxes with a Keep button that holds to the minimum,
a route on the map is claimed by clicking it (or by the keyboard: Tab to it, Enter) and then choosing how to pay,
a face-up card is taken by clicking it, a station is built by clicking a city (then how to pay), tickets are
drawn by clicking the ticket pile, a BANG! seat to choose (Jesse Jones's draw) is clicked on the table, and a BANG! card in the hand is played by clicking it and then choosing
its target. Every move reaches the server as the legal action it stands for (no refusal)."""

from __future__ import annotations

from typing import Any

from tabletop.v1 import bang_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.log_pages import encode_token
from tests.helpers import bearer, deciding_seat
from tests.web.axe import serious
from tests.web.seats import VERSION_WAIT_MS, seat_script


def _open_seat(browser: Any, url: str, game: str, seat: int, token: str) -> tuple[Any, Any]:
    # bypass_csp: axe-core is injected into some of these pages (the page itself is unchanged)
    context = browser.new_context(locale="en-US", bypass_csp=True, viewport={"width": 1400, "height": 1000})
    context.add_init_script(
        seat_script(game, seat, token))
    page = context.new_page()
    page.goto(f"{url}/#/games/{game.removeprefix('games/')}")
    page.get_by_test_id("seat").wait_for(timeout=VERSION_WAIT_MS)
    return context, page


def _version(stub: Any, game: str) -> int:
    return int(stub.GetGame(svc.GetGameRequest(name=game)).game.version)


def test_ttr_tickets_by_check_boxes_and_a_route_claimed_on_the_map(browser: Any, web_url: str, stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"]))
    game = created.game.name
    tokens = {c.seat: c.player_token for c in created.credentials}
    context, page = _open_seat(browser, web_url, game, 0, tokens[0])
    try:
        form = page.get_by_test_id("keep-form")
        form.wait_for(timeout=VERSION_WAIT_MS)
        boxes = form.locator("input[type=checkbox]")
        keep = page.get_by_test_id("keep-tickets")
        for i in range(boxes.count()):
            boxes.nth(i).uncheck()
        assert keep.is_disabled()  # fewer than the minimum
        boxes.nth(0).check()
        assert keep.is_disabled()
        boxes.nth(1).check()
        assert keep.is_enabled()
        kept = sorted(int(str(boxes.nth(i).get_attribute("data-ticket"))) for i in range(2))
        before = _version(stub, game)
        keep.click()
        page.locator(f"#app[data-version]:not([data-version='{before}'])").wait_for(timeout=VERSION_WAIT_MS)
        view = stub.GetGame(svc.GetGameRequest(name=game), metadata=bearer(tokens[0])).view.ttr_europe
        assert sorted(t.id for t in view.private.tickets) == kept
        other = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(tokens[1]))
        stub.SubmitAction(svc.SubmitActionRequest(name=game, action=other.actions[0], expected_version=other.version),
                          metadata=bearer(tokens[1]))
        claimed = False
        for _ in range(12):
            version = _version(stub, game)
            page.locator(f"#app[data-version='{version}']").wait_for(timeout=VERSION_WAIT_MS)
            legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(tokens[0])).actions
            if not legal:  # bob's turn: he draws from the deck
                bob = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(tokens[1]))
                draw = next(a for a in bob.actions if a.ttr_europe.WhichOneof("kind") == "draw_train_card")
                stub.SubmitAction(svc.SubmitActionRequest(name=game, action=draw, expected_version=bob.version),
                                  metadata=bearer(tokens[1]))
                continue
            # not a tunnel: a tunnel's claim first turns up its extra cards (a question, not yet the route)
            routes = page.locator("svg.board g.route.claimable:not([data-tunnel])")  # a tunnel has data-tunnel=""
            if routes.count() > 0 and not claimed:
                route_id = int(str(routes.first.get_attribute("data-route")))
                # The route by its id from here on (a redraw between two steps cannot make it another route), and
                # how many ways to pay the seat has for it: more than one, and the page must ask which.
                route = page.locator(f"svg.board g.route.claimable[data-route='{route_id}']")
                ways = [a for a in legal if a.ttr_europe.WhichOneof("kind") == "claim_route"
                        and a.ttr_europe.claim_route.route_id == route_id]
                route.press("Enter")  # the keyboard reaches the map as the mouse does (focus, then Enter)
                if len(ways) > 1:
                    choice = page.get_by_test_id("choice")
                    choice.wait_for(timeout=VERSION_WAIT_MS)
                    assert choice.locator("h3").inner_text().startswith("Claim ")
                    assert choice.get_by_test_id("choice-option").count() == len(ways)
                    choice.get_by_test_id("choice-option").first.click()
                owned = page.locator(f"svg.board g.route[data-route='{route_id}'][data-owner='0']")
                try:
                    owned.wait_for(timeout=VERSION_WAIT_MS)
                except Exception as timeout:  # say what the page did instead
                    refusal = page.get_by_test_id("refusal")
                    said = refusal.inner_text() if refusal.count() else "no refusal shown"
                    shown = page.locator("#app").get_attribute("data-version")
                    log = stub.GetGameLog(svc.GetGameLogRequest(name=game), metadata=bearer(tokens[0]))
                    raise AssertionError(f"route {route_id} ({len(ways)} ways to pay: {ways}) not claimed at version"
                                         f" {version}: the page shows version {shown}, {said}; the game is at"
                                         f" {_version(stub, game)}; its log: {log}") from timeout
                owners = stub.GetGame(svc.GetGameRequest(name=game)).view.ttr_europe.route_owners
                assert owners[route_id - 1] == 0
                claimed = True
                break
            page.locator("[data-testid=face-up] .card.actionable").first.click()  # take a face-up card
            page.locator(f"#app[data-version]:not([data-version='{version}'])").wait_for(timeout=VERSION_WAIT_MS)
            assert page.get_by_test_id("refusal").count() == 0
        assert claimed, "no route became claimable in 12 turns of drawing"
        assert page.get_by_test_id("refusal").count() == 0
    finally:
        context.close()


def test_bang_a_card_in_hand_is_played_by_clicking_it(browser: Any, web_url: str, stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="bang", seat_count=4, display_names=["a", "b", "c", "d"]))
    game = created.game.name
    tokens = {c.seat: c.player_token for c in created.credentials}
    # Whoever must act first (the Sheriff's draw phase or turn): play through the draw by the server's API.
    for _ in range(6):
        acting = [s for s in tokens if stub.ListLegalActions(svc.ListLegalActionsRequest(name=game),
                                                             metadata=bearer(tokens[s])).actions]
        seat = acting[0]
        legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(tokens[seat]))
        if any(a.bang.WhichOneof("kind") == "play" for a in legal.actions):
            break
        stub.SubmitAction(svc.SubmitActionRequest(name=game, action=legal.actions[0], expected_version=legal.version),
                          metadata=bearer(tokens[seat]))
    context, page = _open_seat(browser, web_url, game, seat, tokens[seat])
    try:
        version = _version(stub, game)
        page.locator(f"#app[data-version='{version}']").wait_for(timeout=VERSION_WAIT_MS)
        first = page.locator("[data-testid=hand] .bang-card.actionable").first
        first.wait_for(timeout=VERSION_WAIT_MS)
        card_id = first.get_attribute("data-card")
        card = page.locator(f"[data-testid=hand] .bang-card.actionable[data-card='{card_id}']")  # this card from here on
        offered = int(str(card.get_attribute("data-actions")))
        card.click()
        if offered > 1:  # several targets or ways: the page asks exactly that
            options = page.get_by_test_id("choice").get_by_test_id("choice-option")
            assert options.count() == offered
            options.first.click()
        page.locator(f"#app[data-version]:not([data-version='{version}'])").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("refusal").count() == 0
        hand = stub.GetGame(svc.GetGameRequest(name=game), metadata=bearer(tokens[seat])).view.bang.hand
        assert card_id not in [c.id for c in hand]
    finally:
        context.close()


def _ttr_after_tickets(stub: Any) -> tuple[str, dict[int, str], int]:
    """A 2-seat Ticket to Ride game past the first tickets (each seat keeps its first choice over gRPC): the
    game, its tokens and the seat whose turn it is."""
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"],
                                                    seed=3))
    game = created.game.name
    tokens = {c.seat: c.player_token for c in created.credentials}
    for seat in sorted(tokens):
        legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(tokens[seat]))
        stub.SubmitAction(svc.SubmitActionRequest(name=game, action=legal.actions[0], expected_version=legal.version),
                          metadata=bearer(tokens[seat]))
    view = stub.GetGame(svc.GetGameRequest(name=game)).view.ttr_europe
    return game, tokens, view.current_seat


def test_ttr_a_station_is_built_by_clicking_a_city_on_the_map(browser: Any, web_url: str, stub: Any) -> None:
    game, tokens, seat = _ttr_after_tickets(stub)
    legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(tokens[seat])).actions
    cities = {a.ttr_europe.build_station.city for a in legal if a.ttr_europe.WhichOneof("kind") == "build_station"}
    assert cities, "no station can be built on the first turn"
    context, page = _open_seat(browser, web_url, game, seat, tokens[seat])
    try:
        version = _version(stub, game)
        page.locator(f"#app[data-version='{version}']").wait_for(timeout=VERSION_WAIT_MS)
        buildable = page.locator("svg.board g.buildable")
        assert {buildable.nth(i).get_attribute("data-city") for i in range(buildable.count())} == cities
        city = min(cities)
        element = page.locator(f"svg.board g.buildable[data-city='{city}']")
        assert str(element.get_attribute("aria-label")).startswith("Build a station in ")
        assert not serious(page)  # the cities as buttons: labelled, reachable, no button inside a button
        payments = [a for a in legal if a.ttr_europe.WhichOneof("kind") == "build_station"
                    and a.ttr_europe.build_station.city == city]
        assert len(payments) > 1  # the first station costs one card of any colour the hand holds
        choice = page.get_by_test_id("choice")
        page.locator(f"svg.board g.buildable[data-city='{city}'] circle.hit").click()  # the dot, as a person clicks it
        assert choice.locator("h3").inner_text().startswith("Build a station in ")
        assert choice.get_by_test_id("choice-option").count() == len(payments)  # how to pay: this city's payments
        page.get_by_test_id("choice-cancel").click()
        element.focus()
        page.keyboard.press("Enter")  # the keyboard reaches a city as the mouse does
        choice.get_by_test_id("choice-option").first.click()
        page.locator(f"#app[data-version]:not([data-version='{version}'])").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("refusal").count() == 0
        stations = stub.GetGame(svc.GetGameRequest(name=game)).view.ttr_europe.stations
        assert [(s.city, s.seat) for s in stations] == [(city, seat)]
        page.locator(f"svg.board .station[data-station='{city}']").wait_for(timeout=VERSION_WAIT_MS)
    finally:
        context.close()


def test_ttr_tickets_are_drawn_by_clicking_the_ticket_pile(browser: Any, web_url: str, stub: Any) -> None:
    game, tokens, seat = _ttr_after_tickets(stub)
    context, page = _open_seat(browser, web_url, game, seat, tokens[seat])
    try:
        version = _version(stub, game)
        page.locator(f"#app[data-version='{version}']").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("keep-form").count() == 0
        page.get_by_test_id("draw-tickets").click()
        page.locator(f"#app[data-version]:not([data-version='{version}'])").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("refusal").count() == 0
        offered = stub.GetGame(svc.GetGameRequest(name=game), metadata=bearer(tokens[seat])).view.ttr_europe.private
        assert len(offered.offered_tickets) == 3
        page.get_by_test_id("keep-form").wait_for(timeout=VERSION_WAIT_MS)  # then which to keep, as check boxes
    finally:
        context.close()


def test_bang_a_seat_is_chosen_by_clicking_it_on_the_table(browser: Any, web_url: str, stub: Any) -> None:
    # Seed 6 deals Jesse Jones to the first seat to act: his draw takes a card from a player's hand.
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="bang", seat_count=4, display_names=["a", "b", "c", "d"],
                                                    seed=6))
    game = created.game.name
    tokens = {c.seat: c.player_token for c in created.credentials}
    seat, actions = deciding_seat(stub, game, tokens)
    assert seat is not None
    from_player = [a for a in actions if a.bang.WhichOneof("kind") == "draw"
                   and a.bang.draw.source == bang_pb2.BANG_DRAW_SOURCE_PLAYER]
    assert from_player, "seed 6 no longer deals Jesse Jones to the first seat"
    context, page = _open_seat(browser, web_url, game, seat, tokens[seat])
    try:
        version = _version(stub, game)
        page.locator(f"#app[data-version='{version}']").wait_for(timeout=VERSION_WAIT_MS)
        choosable = page.locator("[data-testid=table] .seat.actionable")
        assert sorted(int(str(choosable.nth(i).get_attribute("data-seat"))) for i in range(choosable.count())) == \
            sorted(a.bang.draw.target_seat for a in from_player)
        victim = from_player[0].bang.draw.target_seat
        element = page.locator(f"[data-testid=table] .seat.actionable[data-seat='{victim}']")
        assert "hand of" in str(element.get_attribute("aria-label"))
        assert not serious(page)  # the seats as buttons: labelled, reachable, no button inside a button
        before = {p.seat: p.hand_count for p in stub.GetGame(svc.GetGameRequest(name=game)).view.bang.players}
        element.click()
        page.locator(f"#app[data-version]:not([data-version='{version}'])").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("refusal").count() == 0
        logged = stub.GetGameLog(svc.GetGameLogRequest(name=game, page_size=1, page_token=encode_token(
            game.removeprefix("games/"), version)), metadata=bearer(tokens[seat])).entries[0]
        assert (logged.seat, logged.action) == (seat, from_player[0])
        after = {p.seat: p.hand_count for p in stub.GetGame(svc.GetGameRequest(name=game)).view.bang.players}
        assert after[victim] == before[victim] - 1
    finally:
        context.close()
