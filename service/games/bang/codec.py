"""Codec between the tabletop.v1 BANG! messages and the rules' plain data."""

from __future__ import annotations

from typing import Any

from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.engine.ruleset import Action, Event, Options
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.setup import HOUSE_RULES, normalize_options
from tabletop_server.service.games.bang.tables import CARDS

SUIT_PB = {"hearts": bang_pb2.BANG_SUIT_HEARTS, "diamonds": bang_pb2.BANG_SUIT_DIAMONDS,
           "clubs": bang_pb2.BANG_SUIT_CLUBS, "spades": bang_pb2.BANG_SUIT_SPADES}
ROLE_PB = {"sheriff": bang_pb2.BANG_ROLE_SHERIFF, "deputy": bang_pb2.BANG_ROLE_DEPUTY,
           "outlaw": bang_pb2.BANG_ROLE_OUTLAW, "renegade": bang_pb2.BANG_ROLE_RENEGADE}
EXPANSION_PB = {"dodge_city": bang_pb2.BANG_EXPANSION_DODGE_CITY,
                "armed_and_dangerous": bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS}
EXPANSION_NAME = {v: k for k, v in EXPANSION_PB.items()}
SOURCE_PB = {"deck": bang_pb2.BANG_DRAW_SOURCE_DECK, "discard": bang_pb2.BANG_DRAW_SOURCE_DISCARD,
             "player": bang_pb2.BANG_DRAW_SOURCE_PLAYER}
SOURCE_NAME = {v: k for k, v in SOURCE_PB.items()}
EVENT_PB = {"turn": bang_pb2.BANG_EVENT_KIND_TURN_STARTED, "draw": bang_pb2.BANG_EVENT_KIND_DRAW,
            "check": bang_pb2.BANG_EVENT_KIND_CHECK, "play": bang_pb2.BANG_EVENT_KIND_PLAY,
            "respond": bang_pb2.BANG_EVENT_KIND_RESPOND, "pass": bang_pb2.BANG_EVENT_KIND_PASS,
            "discard": bang_pb2.BANG_EVENT_KIND_DISCARD, "take": bang_pb2.BANG_EVENT_KIND_TAKE,
            "damage": bang_pb2.BANG_EVENT_KIND_DAMAGE, "heal": bang_pb2.BANG_EVENT_KIND_HEAL,
            "equip": bang_pb2.BANG_EVENT_KIND_EQUIP, "move": bang_pb2.BANG_EVENT_KIND_MOVE,
            "explode": bang_pb2.BANG_EVENT_KIND_EXPLODE, "jail": bang_pb2.BANG_EVENT_KIND_JAIL,
            "barrel": bang_pb2.BANG_EVENT_KIND_BARREL, "reveal": bang_pb2.BANG_EVENT_KIND_REVEAL,
            "look": bang_pb2.BANG_EVENT_KIND_LOOK, "put_back": bang_pb2.BANG_EVENT_KIND_PUT_BACK,
            "choose": bang_pb2.BANG_EVENT_KIND_CHOOSE, "eliminated": bang_pb2.BANG_EVENT_KIND_ELIMINATED,
            "game_over": bang_pb2.BANG_EVENT_KIND_GAME_OVER, "reshuffle": bang_pb2.BANG_EVENT_KIND_RESHUFFLE,
            "end_turn": bang_pb2.BANG_EVENT_KIND_END_TURN, "use": bang_pb2.BANG_EVENT_KIND_USE,
            "unaffected": bang_pb2.BANG_EVENT_KIND_UNAFFECTED, "cubes": bang_pb2.BANG_EVENT_KIND_CUBES}
# Action types that encode as a bare message or a message with one card.
_SIMPLE_ACTIONS = frozenset({"pass", "end_turn", "respond", "choose", "discard", "upgrade"})
_CARD_PB: dict[str, bang_pb2.BangCard] = {
    cid: bang_pb2.BangCard(id=cid, name=c.key, suit=SUIT_PB[c.suit], rank=c.rank) for cid, c in CARDS.items()}


def card_pb(card: str) -> bang_pb2.BangCard:
    """The message of a card id (prebuilt; callers copy it into their field)."""
    return _CARD_PB[card]


def role_pb(role: str) -> bang_pb2.BangRole.ValueType:
    """The enum value of a role key."""
    return ROLE_PB[role]


def decode_options(pb: bang_pb2.BangOptions | None) -> Options:
    """Options with defaults; an expansion not built yet raises EXPANSION_NOT_AVAILABLE."""
    if pb is None:
        return normalize_options(None)
    names = []
    for value in pb.expansions:
        if value not in EXPANSION_NAME:
            raise MalformedAction(Reason.EXPANSION_NOT_AVAILABLE, f"Unknown expansion {value}",
                                  field="options.bang.expansions")
        names.append(EXPANSION_NAME[value])
    opts: dict[str, Any] = {"expansions": names, "sheriff_extra_card": pb.sheriff_extra_card,
                            "kept_characters": [{"seat": k.seat, "character": k.character}
                                                for k in pb.kept_characters],
                            "retired_characters": list(pb.retired_characters)}
    if pb.HasField("sheriff_seat"):
        opts["sheriff_seat"] = pb.sheriff_seat
    opts.update({key: getattr(pb, key) for key in HOUSE_RULES})
    return normalize_options(opts)


def encode_options(options: Options) -> bang_pb2.BangOptions:
    """The options message of an options dict."""
    opts = normalize_options(options)
    pb = bang_pb2.BangOptions(expansions=[EXPANSION_PB[e] for e in opts["expansions"]],
                              sheriff_extra_card=opts["sheriff_extra_card"],
                              kept_characters=[bang_pb2.BangKeptCharacter(seat=k["seat"], character=k["character"])
                                               for k in opts.get("kept_characters", [])],
                              retired_characters=opts.get("retired_characters", []),
                              **{key: bool(opts.get(key, False)) for key in HOUSE_RULES})
    if opts.get("sheriff_seat") is not None:
        pb.sheriff_seat = opts["sheriff_seat"]
    return pb


def rematch_options(final: bang_pb2.BangView, *, keep_characters: bool = True,
                    rotate_sheriff: bool = True) -> bang_pb2.BangOptions:
    """The options of a rematch at the same table, from the finished game's view (BANG-032, BANG-033).

    Survivors keep their characters and the eliminated players' characters are retired,
    so that they draw a new one; the Sheriff's role passes to the next seat ("to the
    left": turns go the same way). A client builds the same message from the view it has.
    """
    pb = bang_pb2.BangOptions()
    if keep_characters:
        for p in final.players:
            if p.alive:
                pb.kept_characters.add(seat=p.seat, character=p.character)
            else:
                pb.retired_characters.append(p.character)
    if rotate_sheriff:
        sheriff = [p.seat for p in final.players if p.role == bang_pb2.BANG_ROLE_SHERIFF]
        if sheriff:
            pb.sheriff_seat = (sheriff[0] + 1) % len(final.players)
    return pb


def decode_action(pb: bang_pb2.BangAction) -> Action:
    """The action dict of a message; an empty oneof raises MalformedAction."""
    kind = pb.WhichOneof("kind")
    if kind is None:
        raise MalformedAction(Reason.UNKNOWN_ACTION, "Set one action in the BangAction oneof", field="action.bang")
    if kind in ("play", "use"):
        msg = getattr(pb, kind)
        out: dict[str, Any] = {"type": kind, "card": msg.card}
        if msg.HasField("target_seat"):
            out["target"] = msg.target_seat
        if msg.pick:
            out["pick"] = msg.pick
        return out
    if kind == "draw":
        if pb.draw.source not in SOURCE_NAME:
            raise MalformedAction(Reason.UNKNOWN_ACTION, "Set the draw source", field="action.bang.draw.source")
        out = {"type": "draw", "source": SOURCE_NAME[pb.draw.source]}
        if pb.draw.HasField("target_seat"):
            out["target"] = pb.draw.target_seat
        return out
    if kind == "ability":
        ability: dict[str, Any] = {"type": "ability", "cards": list(pb.ability.cards)}
        if pb.ability.HasField("target_seat"):
            ability["target"] = pb.ability.target_seat
        return ability
    if kind == "barrel":
        return {"type": "barrel", "card": pb.barrel.card} if pb.barrel.card else {"type": "barrel"}
    if kind in ("pass", "end_turn"):
        return {"type": kind}
    if kind == "upgrade":
        return {"type": "upgrade", "target": pb.upgrade.target_seat} if pb.upgrade.HasField("target_seat") else {
            "type": "upgrade"}
    if kind == "choose" and pb.choose.HasField("target_seat") and not pb.choose.card and not pb.choose.pick:
        return {"type": "choose", "target": pb.choose.target_seat}
    if kind == "choose" and pb.choose.pick and not pb.choose.card:
        return {"type": "choose", "pick": pb.choose.pick}
    return {"type": kind, "card": getattr(pb, kind).card}


def encode_action(action: Action) -> bang_pb2.BangAction:
    """The message of an action dict; an unknown action type raises ``ValueError`` (never a discard)."""
    kind = action["type"]
    if kind not in _SIMPLE_ACTIONS and kind not in ("play", "use", "draw", "ability", "barrel"):
        raise ValueError(f"BANG! action type {kind!r} has no BangAction field")
    if kind == "play":
        play = bang_pb2.BangPlayCard(card=action["card"], pick=action.get("pick", ""))
        if action.get("target") is not None:
            play.target_seat = action["target"]
        return bang_pb2.BangAction(play=play)
    if kind == "use":
        use = bang_pb2.BangUseCard(card=action["card"], pick=action.get("pick", ""))
        if action.get("target") is not None:
            use.target_seat = action["target"]
        return bang_pb2.BangAction(use=use)
    if kind == "draw":
        draw = bang_pb2.BangDrawFrom(source=SOURCE_PB[action["source"]])
        if action.get("target") is not None:
            draw.target_seat = action["target"]
        return bang_pb2.BangAction(draw=draw)
    if kind == "ability":
        ability = bang_pb2.BangUseAbility(cards=action["cards"])
        if action.get("target") is not None:
            ability.target_seat = action["target"]
        return bang_pb2.BangAction(ability=ability)
    if kind == "barrel":
        return bang_pb2.BangAction(barrel=bang_pb2.BangUseBarrel(card=action.get("card", "")))
    out = bang_pb2.BangAction()
    if kind in ("pass", "end_turn"):
        getattr(out, kind).SetInParent()
    elif kind == "upgrade":
        out.upgrade.SetInParent()
        if action.get("target") is not None:
            out.upgrade.target_seat = action["target"]
    elif kind == "choose" and "target" in action:
        out.choose.target_seat = action["target"]
    elif kind == "choose" and "pick" in action:
        out.choose.pick = action["pick"]
    else:  # respond, choose, discard: a card
        getattr(out, kind).card = action["card"]
    return out


def encode_event(event: Event) -> bang_pb2.BangEvent:
    """The message of a (projected) event; an unknown event kind raises ``ValueError`` (never UNSPECIFIED)."""
    if event["kind"] not in EVENT_PB:
        raise ValueError(f"BANG! event kind {event['kind']!r} has no BangEventKind in codec.EVENT_PB")
    pb = bang_pb2.BangEvent(kind=EVENT_PB[event["kind"]], seat=event.get("seat") or 0,
                            cards=[_CARD_PB[c] for c in event.get("cards", [])],
                            count=event.get("count", len(event.get("cards", []))),
                            amount=event.get("amount", 0), life=event.get("life", 0),
                            reason=event.get("reason", ""), seats=event.get("seats", []),
                            success=bool(event.get("success", False)),
                            roles=[ROLE_PB[r] for r in event.get("roles", [])])
    if event.get("other") is not None:
        pb.other_seat = event["other"]
    if event.get("role"):
        pb.role = ROLE_PB[event["role"]]
    return pb
