"""Ticket to Ride in the browser, issue 31's small defects: a finished game names its winner above the final
scores (from the view's ``winners`` and ``final_scores``), and the count on every train card of a hand is
readable on the card's colour (WCAG AA, contrast at least 4.5:1), the white card included.

A two-seat game with a fixed seed is created over gRPC, each seat opened in its own browser context, and
the game is played to its end over gRPC with the seats' tokens; every few actions the first seat's hand is checked, and at the end both pages show the winner line.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game
from tests.web.seats import VERSION_WAIT_MS, Seat

AA = 4.5  # WCAG 2 AA for normal-size text
CHECK_EVERY = 5  # actions between two checks of the hand
SEED = 7

# For each card of the hand: its colour, the colour of the element holding its count, and the first opaque
# background behind that element (null when a gradient or image lies behind it before any opaque colour).
COUNT_COLORS = """() => [...document.querySelectorAll("[data-testid=hand] [data-color]")].map((card) => {
  let ink = card;
  while (ink.firstElementChild && ink.firstElementChild.textContent === card.textContent) { ink = ink.firstElementChild; }
  let back = null;
  for (let e = ink; e; e = e.parentElement) {
    const style = getComputedStyle(e);
    if (/^rgb\\(/.test(style.backgroundColor)) { back = style.backgroundColor; break; }
    if (style.backgroundImage !== "none") { break; }
  }
  return [card.dataset.color, getComputedStyle(ink).color, back];
})"""


def test_a_finished_game_names_its_winner_and_card_counts_are_readable(browser: Any, web_url: str,
                                                                       stub: Any) -> None:
    ann, bob = Seat(browser, web_url), Seat(browser, web_url)
    try:
        game, tokens = create_game(stub, seats=2, seed=SEED)  # a fixed deal: the same hands every run
        name = game.name
        for seat, page in enumerate((ann, bob)):
            _open_as(page, name, seat, tokens[seat])
        rng = random.Random(31)
        seen: set[str] = set()
        for step in range(3000):
            reply = stub.GetGame(svc.GetGameRequest(name=name))
            game, view = reply.game, reply.view.ttr_europe
            if view.phase == 4:  # TTR_PHASE_FINISHED
                break
            if step % CHECK_EVERY == 0:
                ann.wait_for_version(game.version)
                seen |= _check_counts(ann)
            seat = rng.choice(list(view.awaiting_seats))
            actions = list(stub.ListLegalActions(svc.ListLegalActionsRequest(name=name),
                                                 metadata=bearer(tokens[seat])).actions)
            claims = [a for a in actions if a.ttr_europe.WhichOneof("kind") in ("claim_route", "pay_tunnel")]
            action = rng.choice(claims) if claims and rng.random() < 0.7 else rng.choice(actions)
            stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action), metadata=bearer(tokens[seat]))
        assert "white" in seen, seen  # the card the issue names was among those checked
        final = stub.GetGame(svc.GetGameRequest(name=name))
        view = final.view.ttr_europe
        assert view.phase == 4 and list(view.winners)
        names = {0: "p0", 1: "p1"}  # tests.helpers.create_game names its seats
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


# Helpers


def _check_counts(seat: Seat) -> set[str]:
    """Every card count of the seat's hand contrasts AA with what lies behind it; the colours checked."""
    cards = seat.page.evaluate(COUNT_COLORS)  # empty when every card was spent on routes
    for color, ink, back in cards:
        assert back is not None, f"the count on a {color} card has no solid background"
        ratio = _contrast(ink, back)
        assert ratio >= AA, (color, ink, back, ratio)
    return {color for color, _, _ in cards}


def _open_as(seat: Seat, name: str, index: int, token: str) -> None:
    """Open the game's page holding a seat created over gRPC (the page keeps it in sessionStorage).

    The credential is written by an init script, before the page's own script runs, and the game's page is
    then loaded as a document of its own: no hash navigation within the lobby's document, whose timing under
    a loaded machine is the page's, not the test's."""
    key, value = f"tabletop:seat:{name}", json.dumps({"seat": index, "token": token})
    seat.page.add_init_script(f"sessionStorage.setItem({json.dumps(key)}, {json.dumps(value)});")
    seat.page.goto(f"{seat.url}/#/games/{name.removeprefix('games/')}")
    seat.page.get_by_test_id("seat").wait_for(timeout=VERSION_WAIT_MS)


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _luminance(css: str) -> float:
    """WCAG relative luminance of an opaque ``rgb(r, g, b)`` (an ``rgba`` with alpha 1 too)."""
    parts = [float(p) for p in css[css.index("(") + 1:css.index(")")].split(",")]
    assert len(parts) == 3 or parts[3] == 1, css
    linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in parts[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
