"""Armed & Dangerous' cube requests: what the mutation run of ``cubes.py`` and ``cube_requests.py`` found
untested (docs/mutation_runs/bang_stop24_ad.md): who a PAY_CUBES or PLACE_CUBES request names as its
source in every seat's view, and the refusal texts and details of a cube placed or paid from the wrong
holder."""

from __future__ import annotations

import pytest
from bang_helpers import act, ad_table, equip, give, orange, pending_kind, play, refusal
from tabletop.v1 import bang_pb2

from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("armed")


@pytest.mark.rule("AD-022")
def test_a_payment_request_is_the_payers_own_in_every_seats_view() -> None:
    st = ad_table(4)
    orange(st, 0, "whip", 2)
    orange(st, 0, "crate", 1)  # two holders: the payer is asked
    play(st, 0, give(st, 0, ["caravan"])[0])
    act(st, 0, {"type": "upgrade"})
    assert pending_kind(st) == "pay_cubes"
    for seat in (0, 1, 2, None):
        req = bang.view(st, seat).pending[-1]
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_PAY_CUBES and (req.seat, req.source_seat) == (0, 0)
        assert req.HasField("source_seat")


@pytest.mark.rule("AD-003")
def test_a_placement_request_is_the_placers_own_in_every_seats_view() -> None:
    st = ad_table(4)
    orange(st, 0, "whip", 3)
    play(st, 0, give(st, 0, ["mustang"])[0])  # a blue card: a recharge cube to place
    assert pending_kind(st) == "place_cubes"
    for seat in (0, 1, 3, None):
        req = bang.view(st, seat).pending[-1]
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_PLACE_CUBES and (req.seat, req.source_seat) == (0, 0)
        assert req.HasField("source_seat")


@pytest.mark.rule("AD-003")
def test_a_cube_placed_on_a_card_without_room_is_refused_saying_where_cubes_go() -> None:
    st = ad_table(4)
    orange(st, 0, "whip", 3)
    scope = equip(st, 0, ["scope"])[0]
    play(st, 0, give(st, 0, ["mustang"])[0])
    err = refusal(st, 0, {"type": "choose", "pick": scope})
    assert err.reason == "NO_ROOM_FOR_CUBES"
    assert err.message == "Place cubes on your character or one of your orange cards with room (at most 4 on each)"
    assert err.details == {"pick": scope}


@pytest.mark.rule("AD-022")
def test_a_cube_paid_from_an_empty_holder_is_refused_saying_where_cubes_come_from() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 2)
    orange(st, 0, "crate", 1)
    play(st, 0, give(st, 0, ["caravan"])[0])
    act(st, 0, {"type": "upgrade"})
    err = refusal(st, 0, {"type": "choose", "pick": "character"})  # the character holds no cube
    assert err.reason == "NOT_A_CUBE_HOLDER"
    assert err.message == "Pay from your character or one of your orange cards that holds a cube"
    assert err.details == {"pick": "character"}
    assert {"type": "choose", "pick": whip} in bang.legal_actions(st, 0)
