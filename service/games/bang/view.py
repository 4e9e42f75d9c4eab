"""What a seat may see: the view and the projection of events (DESIGN 10; hidden information).

Hands and roles are secret: a seat sees its own hand, the counts of the others,
everything in play, the Sheriff's role, dead players' roles (all roles once the game
is over, and always in the 3-player game, whose roles are dealt face up) and the cards the rules reveal: draw! cards, General Store cards, Black
Jack's second card, a card taken from a hand only to the two players involved, Kit
Carlson's three cards only to him. The deck order is never sent.
"""

from __future__ import annotations

from collections.abc import Iterable

from tabletop.v1 import bang_pb2

from tabletop_server.service.games.bang.actions import to_act
from tabletop_server.service.games.bang.codec import card_pb, role_pb
from tabletop_server.service.games.bang.cubes import use_payable
from tabletop_server.service.games.bang.layout import Event, RequestEntry, State
from tabletop_server.service.games.bang.pending import REQUESTS
from tabletop_server.service.games.bang.state import any_args, ready
from tabletop_server.service.games.bang.tables import ROLES, TYPE_OF, mode_of

# Draw reasons whose cards are shown to everyone.
PUBLIC_DRAWS = frozenset({"black_jack_shown", "discard_pile"})
# Who sees the cards of each event kind. Fail closed: an event kind missing here raises
# in ``project`` (and in the codec), so a new event that carries a hidden card can never
# be shown to every seat by default. "public": everyone; "drawer": the drawer, or everyone
# for a public draw reason; "actor": the event's seat only; "take": a card from a hand is
# seen by the two players involved, a card from play by everyone.
VISIBILITY = {
    "turn": "public", "draw": "drawer", "check": "public", "play": "public", "respond": "public",
    "pass": "public", "discard": "public", "take": "take", "damage": "public", "heal": "public",
    "equip": "public", "move": "public", "explode": "public", "jail": "public", "barrel": "public",
    "reveal": "public", "look": "actor", "put_back": "actor", "choose": "public", "eliminated": "public",
    "game_over": "public", "reshuffle": "public", "end_turn": "public", "use": "public", "unaffected": "public",
    "cubes": "public",
}
# Event kinds whose cards only the acting seat sees.
PRIVATE_KINDS = frozenset(k for k, v in VISIBILITY.items() if v == "actor")
PHASES = {"draw": bang_pb2.BANG_PHASE_DRAW, "play": bang_pb2.BANG_PHASE_PLAY,
          "discard": bang_pb2.BANG_PHASE_DISCARD, "end": bang_pb2.BANG_PHASE_END,
          "over": bang_pb2.BANG_PHASE_OVER}
# A request kind's wire kind: its handler's ``shown_as`` or its own name (``pending.RequestKind``), looked up
# once per kind. Fail closed: a kind without a handler or a ``BangRequestKind`` raises, never sent as UNSPECIFIED.
_WIRE_KINDS: dict[str, bang_pb2.BangRequestKind.ValueType] = {}
_WIRE_NAMES = frozenset(bang_pb2.BangRequestKind.keys()) - {"BANG_REQUEST_KIND_UNSPECIFIED"}


def role_visible(state: State, owner: int, viewer: int | None) -> bool:
    """Whether ``viewer`` may see the role of ``owner`` (BANG-005; every role in the 3-player game, DC-044)."""
    p = state["p"][owner]
    return bool(viewer == owner or ROLES[p["role"]].revealed or not p["alive"] or state["phase"] == "over"
                or mode_of(len(state["p"])).face_up)


def role_goal(state: State, role: str) -> str:
    """The goal shown with a role: the game mode's own (3-player targets, DC-045), else the role card's."""
    return mode_of(len(state["p"])).goals.get(role) or ROLES[role].goal


def view(state: State, seat: int | None) -> bang_pb2.BangView:
    """The game as ``seat`` (None: a spectator) may see it."""
    public, private = _public(state)
    if seat is not None:
        _show_own(state, seat, public, private)
    return public


def views(state: State, seats: Iterable[int | None]) -> list[bang_pb2.BangView]:
    """``view(state, seat)`` for each of ``seats``, the part every viewer sees built once (a step seen by
    every seat and a spectator, as the golden corpus checks it, costs one public view and a copy per seat)."""
    public, private = _public(state)
    out = []
    for seat in seats:
        copy = bang_pb2.BangView()
        copy.CopyFrom(public)
        if seat is not None:
            _show_own(state, seat, copy, private)
        out.append(copy)
    return out


def _public(state: State) -> tuple[bang_pb2.BangView, list[tuple[int, RequestEntry]]]:
    """The spectator's view, and the pending requests (index in ``pending``, entry) whose offered cards
    only their own seat sees."""
    out = bang_pb2.BangView(turn_seat=state["turn"], phase=PHASES[state["phase"]], turn_number=state["turn_no"],
                            deck_count=len(state["deck"]), discard_count=len(state["discard"]),
                            winners=state["winners"], bangs_played=state["bangs"], to_act=to_act(state))
    if state["discard"]:
        out.discard_top.CopyFrom(card_pb(state["discard"][-1]))
    if "supply" in state:  # Armed & Dangerous: every cube is public
        out.cube_supply = state["supply"]
    marks = state.get("marks")
    for i, p in enumerate(state["p"]):
        player = out.players.add(seat=i, character=p["char"], life=p["life"], max_life=p["max"],
                                 hand_count=len(p["hand"]), in_play=[card_pb(c) for c in p["table"]],
                                 alive=p["alive"])
        for c in p["table"]:  # green cards in play and whether each is ready (DC-009): public, like the cards
            if TYPE_OF[c].use is not None:
                player.usable.add(card_id=c, ready=ready(state, c) and use_payable(state, i, c))
            cubes = marks.get(c, {}).get("cubes") if marks else None
            if cubes:
                player.card_cubes.add(card_id=c, cubes=cubes)
        if p.get("cubes"):
            player.cubes = p["cubes"]
        if role_visible(state, i, None):
            player.role = role_pb(p["role"])
            player.role_goal = role_goal(state, p["role"])
    private = []
    for req in state["pending"]:
        if req["seat"] is not None:
            out.pending.append(_request_pb(req, None))  # first: an unknown kind raises there (fail closed)
            if REQUESTS[req["kind"]].private_offer:
                private.append((len(out.pending) - 1, req))
    return out, private


def _show_own(state: State, seat: int, out: bang_pb2.BangView,
              private: list[tuple[int, RequestEntry]]) -> None:
    """Add to a spectator's view what ``seat`` alone sees: his hand, his role, the cards offered to him."""
    out.viewer_seat = seat
    out.hand.extend(card_pb(c) for c in state["p"][seat]["hand"])
    p = state["p"][seat]
    if not role_visible(state, seat, None):  # his own role is always his to see
        out.players[seat].role = role_pb(p["role"])
        out.players[seat].role_goal = role_goal(state, p["role"])
    for index, req in private:
        if req["seat"] == seat:
            out.pending[index].CopyFrom(_request_pb(req, seat))


def project(event: Event, seat: int | None) -> Event | None:
    """The event as ``seat`` may see it: hidden card ids are removed, counts stay.

    An event kind without a visibility rule raises ``ValueError`` (fail closed).
    """
    cards = event.get("cards")
    if event["kind"] not in VISIBILITY:
        raise ValueError(f"BANG! event kind {event['kind']!r} has no visibility rule in view.VISIBILITY")
    if not cards or _may_see(event, seat):
        return event
    hidden = event.copy()
    hidden["cards"] = []
    hidden["count"] = len(cards)
    return hidden


def wire_kind(kind: str) -> bang_pb2.BangRequestKind.ValueType:
    """The ``BangRequestKind`` of a request kind (its handler's ``shown_as``, else its name); raises
    ``ValueError`` for a kind without one."""
    handler = REQUESTS.get(kind)
    name = f"BANG_REQUEST_KIND_{handler.shown_as or kind}".upper() if handler is not None else ""
    if name not in _WIRE_NAMES:
        raise ValueError(f"BANG! request kind {kind!r} has no BangRequestKind (pending.RequestKind.shown_as)")
    _WIRE_KINDS[kind] = bang_pb2.BangRequestKind.Value(name)
    return _WIRE_KINDS[kind]


# Helpers

def _may_see(event: Event, seat: int | None) -> bool:
    rule = VISIBILITY[event["kind"]]
    if rule == "public":
        return True
    if rule == "drawer":
        return bool(seat == event["seat"] or event.get("reason") in PUBLIC_DRAWS)
    if rule == "actor":
        return bool(seat == event["seat"])
    if event.get("reason") == "hand":  # "take"
        return seat is not None and seat in (event["seat"], event.get("other"))
    return True


def _request_pb(req: RequestEntry, seat: int | None) -> bang_pb2.BangRequest:
    args = any_args(req)
    kind = _WIRE_KINDS.get(req["kind"]) or wire_kind(req["kind"])
    handler = REQUESTS[req["kind"]]
    pb = bang_pb2.BangRequest(kind=kind, seat=req["seat"],
                              missed_needed=args.get("need", 0), missed_played=args.get("got", 0),
                              barrels_used=args.get("used", []), cards_to_discard=args.get("discard", 0))
    if req["source"] is not None:
        pb.source_seat = req["source"]
    card = args.get("card")
    if card:
        pb.source_card.CopyFrom(card_pb(card))
    if "opp" in args:
        pb.opponent_seat = args["opp"]
    if "victim" in args:
        pb.opponent_seat = args["victim"]
    if "drawer" in args:
        pb.opponent_seat = args["drawer"]
    if req["kind"] in ("pay_cubes", "place_cubes"):
        pb.cubes_to_pay, pb.cubes_to_place = args.get("cubes", 0), args.get("count", 0)
    if req["kind"] == "upgrade":
        pb.upgrades_bought = args["bought"]
        pb.extra_targets.extend(args["extra"])
    offered = args.get("cards", []) or args.get("flipped", [])
    if handler.private_offer and seat != req["seat"]:
        pb.hidden_card_count = len(offered)
    else:
        pb.cards.extend(card_pb(c) for c in offered)
    return pb
