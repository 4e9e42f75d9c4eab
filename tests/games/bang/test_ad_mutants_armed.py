"""Armed & Dangerous' Arrow, Squaw and Whip: what the mutation run of ``effects/armed.py`` found untested
(docs/mutation_runs/bang_stop24_ad.md): the Arrow named as the card behind each target's Indians!-like
request in every seat's view, the refusal text of a Whip or Squaw aimed at a hand, and a Whip that cannot
discard itself."""

from __future__ import annotations

import pytest
from bang_helpers import (
    ad_table,
    chars,
    cubes_on,
    equip,
    give,
    orange,
    pending_kind,
    play,
    refusal,
    refused,
    set_cubes,
)
from tabletop.v1 import bang_pb2

from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("armed")


@pytest.mark.rule("AD-065")
def test_an_arrows_request_names_the_arrow_in_every_seats_view() -> None:
    st = ad_table(6)
    arrow = give(st, 0, ["arrow"])[0]
    give(st, 3, ["bang:4d"])  # a card to answer with: the request waits
    play(st, 0, arrow, target=3)
    assert pending_kind(st) == "indians"
    for seat in (0, 3, 4, None):
        req = bang.view(st, seat).pending[-1]
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_INDIANS and (req.seat, req.source_seat) == (3, 0)
        assert req.source_card.id == arrow


@pytest.mark.rule("AD-046")
def test_a_whip_aimed_at_a_hand_is_refused_saying_to_choose_a_card_in_play() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 3)
    give(st, 1, ["beer"])
    equip(st, 1, ["barrel"])
    err = refusal(st, 0, {"type": "use", "card": whip, "target": 1, "pick": "hand"})
    assert (err.reason, err.message, err.details) == (
        "CARD_NOT_IN_PLAY", "Choose a card in play, not the hand", {"card": "hand"})


@pytest.mark.rule("AD-063")
def test_a_squaw_aimed_at_a_hand_is_refused_the_same_way() -> None:
    st = ad_table(4)
    squaw = give(st, 0, ["squaw"])[0]
    give(st, 2, ["beer"])
    equip(st, 2, ["barrel"])
    err = refusal(st, 0, {"type": "play", "card": squaw, "target": 2, "pick": "hand"})
    assert (err.reason, err.message, err.details) == (
        "CARD_NOT_IN_PLAY", "Choose a card in play, not the hand", {"card": "hand"})


@pytest.mark.rule("AD-046")
def test_a_whip_cannot_discard_itself() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 3)
    scope = equip(st, 0, ["scope"])[0]
    assert {"type": "use", "card": whip, "target": 0, "pick": scope} in bang.legal_actions(st, 0)
    refused(st, 0, {"type": "use", "card": whip, "target": 0, "pick": whip}, "CARD_NOT_IN_PLAY")


@pytest.mark.rule("AD-060")
def test_rust_a_spade_takes_apache_kids_cube_too() -> None:
    st = ad_table(4, expansions=["dodge_city"], chars=chars(4, s2="apache_kid"))  # he ignores diamonds only
    set_cubes(st, 2, "character", 2)
    events = play(st, 0, give(st, 0, ["rust"])[0])
    assert cubes_on(st, 2) == 1 and cubes_on(st, 0) == 1
    assert not [e for e in events if e["kind"] == "unaffected"]
