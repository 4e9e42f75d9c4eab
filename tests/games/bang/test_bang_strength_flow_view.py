"""The pending requests as every seat's view shows them (issue 9: the view half of the
flow mutation run): who is asked, by whom, with which card, how many Missed! effects are
needed and played, the Barrels used, the Duel's opponent and the cards offered."""

from __future__ import annotations

import pytest
from bang_helpers import act, equip, give, play, stack_deck, table
from tabletop.v1 import bang_pb2

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.pending import REQUESTS
from tabletop_server.service.games.bang.view import _WIRE_KINDS, wire_kind


def chars(n: int, **at: str) -> list[str]:
    out = ["black_jack"] * n
    for key, name in at.items():
        out[int(key[1:])] = name
    return out


def pending(state: dict[str, object], viewer: int | None = 0) -> list[bang_pb2.BangRequest]:
    return list(bang.view(state, viewer).pending)


@pytest.mark.rule("BANG-100", "BANG-050")
def test_a_bang_request_shows_shooter_card_needs_and_barrels() -> None:
    st = table(4, chars=chars(4, s2="slab_the_killer"), turn=2)
    give(st, 3, ["missed", "missed"])
    barrel = equip(st, 3, ["barrel"])[0]
    stack_deck(st, ["beer:9h"])
    shot = give(st, 2, ["bang"])[0]
    play(st, 2, shot, target=3)
    (req,) = pending(st)
    assert (req.kind, req.seat, req.source_seat, req.source_card.id) == (bang_pb2.BANG_REQUEST_KIND_BANG, 3, 2, shot)
    assert (req.missed_needed, req.missed_played, list(req.barrels_used)) == (2, 0, [])
    assert not req.HasField("opponent_seat") and not req.cards and req.hidden_card_count == 0
    act(st, 3, {"type": "barrel", "card": barrel})
    (req,) = pending(st, None)
    assert (req.missed_needed, req.missed_played, list(req.barrels_used)) == (2, 1, [barrel])


@pytest.mark.rule("BANG-057")
def test_a_duel_request_names_the_opponent() -> None:
    st = table(4, turn=2)
    give(st, 0, ["bang"])
    duel = give(st, 2, ["duel"])[0]
    play(st, 2, duel, target=0)
    (req,) = pending(st, 1)
    assert (req.kind, req.seat, req.source_seat, req.opponent_seat, req.source_card.id) == (
        bang_pb2.BANG_REQUEST_KIND_DUEL, 0, 2, 2, duel)
    assert req.HasField("opponent_seat") and req.missed_needed == 0


@pytest.mark.rule("BANG-023", "BANG-024")
def test_discard_and_dying_requests_hide_engine_steps() -> None:
    st = table(4, turn=1)
    st["p"][1]["life"] = 1
    give(st, 1, ["beer", "panic"])
    act(st, 1, {"type": "end_turn"})
    (req,) = pending(st, 2)
    assert (req.kind, req.seat, req.source_seat) == (bang_pb2.BANG_REQUEST_KIND_DISCARD, 1, 1)
    assert req.HasField("source_seat") and not req.HasField("source_card")
    st = table(5, turn=2)
    st["p"][3]["life"] = 1
    give(st, 3, ["panic"])
    play(st, 2, give(st, 2, ["bang"])[0], target=3)
    act(st, 3, {"type": "pass"})
    assert [r["kind"] for r in st["pending"]] == ["after_hit", "dying"]
    (req,) = pending(st, 0)
    assert (req.kind, req.seat, req.source_seat) == (bang_pb2.BANG_REQUEST_KIND_DYING, 3, 2)


@pytest.mark.rule("BANG-095", "BANG-061")
def test_offered_cards_are_shown_lucky_duke_flips_and_general_store() -> None:
    st = table(4, chars=chars(4, s1="lucky_duke"))
    equip(st, 1, ["jail"])
    flips = stack_deck(st, ["any:4s", "beer:9h"])
    act(st, 0, {"type": "end_turn"})
    (req,) = pending(st, 3)
    assert (req.kind, req.seat, [c.id for c in req.cards]) == (bang_pb2.BANG_REQUEST_KIND_PICK, 1, flips)
    st = table(4, turn=1)
    offer = stack_deck(st, ["bang", "beer", "missed", "duel"])
    play(st, 1, give(st, 1, ["general_store"])[0])
    (req,) = pending(st, None)
    assert (req.kind, req.seat, req.source_seat, [c.id for c in req.cards]) == (
        bang_pb2.BANG_REQUEST_KIND_STORE, 1, 1, offer)
    assert req.hidden_card_count == 0


@pytest.mark.rule("BANG-094")
def test_kit_carlson_offer_is_his_alone() -> None:
    st = table(4, chars=chars(4, s1="kit_carlson"))
    three = stack_deck(st, ["bang", "beer", "missed"])
    act(st, 0, {"type": "end_turn"})
    assert [c.id for c in pending(st, 1)[0].cards] == three and pending(st, 1)[0].hidden_card_count == 0
    for viewer in (None, 0, 2, 3):
        (req,) = pending(st, viewer)
        assert (req.kind, req.hidden_card_count, list(req.cards)) == (bang_pb2.BANG_REQUEST_KIND_KIT_CARLSON, 3, [])


@pytest.mark.rule("BANG-094")
def test_an_offer_under_another_request_is_shown_only_in_its_own_entry() -> None:
    """Each seat sees his own offered cards in his entry of the stack, wherever it sits in it, and only a count
    in the other's, whether the view is built alone (``bang.view``) or with the others (``bang.views``)."""
    st = table(4, chars=chars(4, s1="kit_carlson", s2="kit_carlson"))
    three = stack_deck(st, ["bang", "beer", "missed"])
    act(st, 0, {"type": "end_turn"})
    (offer,) = st["pending"]
    other = st["deck"][:3]  # any three cards: the view shows what the entry holds
    st["pending"].insert(0, {**offer, "seat": 2, "source": 2, "args": {**offer["args"], "cards": other}})
    for seen in ([bang.view(st, v) for v in (1, 2, None)], bang.views(st, [1, 2, None])):
        mine, his, spectator = ([(list(r.cards), r.hidden_card_count) for r in v.pending] for v in seen)
        assert [[c.id for c in cards] for cards, _ in mine] == [[], three] and mine[0][1] == 3
        assert [[c.id for c in cards] for cards, _ in his] == [other, []] and his[1][1] == 3
        assert spectator == [([], 3), ([], 3)]


def test_each_request_kind_has_its_wire_kind() -> None:
    """The wire kind of each request kind, looked up afresh (not from the cache ``bang.view`` keeps): its own
    name, or the one its handler shows it as (``RequestKind.shown_as``)."""
    shown_as = {"doc_holyday": "COST", "preacher": "DRAW_FOR_CUBES", "vera_custer": "COPY_CHARACTER"}
    for kind in REQUESTS:
        expected = bang_pb2.BangRequestKind.Value(f"BANG_REQUEST_KIND_{shown_as.get(kind, kind.upper())}")
        _WIRE_KINDS.pop(kind, None)
        assert (wire_kind(kind), _WIRE_KINDS[kind]) == (expected, expected), kind
