"""Checking, applying and listing actions: one source of legality (DESIGN 4, 5).

An action is ``{"type": ..., ...}``:

- ``play`` ``card`` [``target``] [``pick``]: play a card in your phase 2;
- ``use`` ``card`` [``target``] [``pick``]: use a card you have in play (green cards), in
  your phase 2 or, for a Missed! effect, to answer a shot;
- ``respond`` ``card``: answer the pending request with a card from your hand;
- ``barrel`` [``card``]: draw! for a Barrel in play (no card: Jourdonnais' own);
- ``pass``: take the hit / lose the Duel / give up in the dying window;
- ``choose`` ``card``: General Store pick, Kit Carlson's card to put back, Lucky Duke's card;
  ``choose`` ``pick``: which card of a victim (``hand`` or a card in play), for a request
  whose ``choose_field`` is ``pick`` (a card for several victims, Brawl; Pat Brennan's card
  in play), or a character key (Vera Custer's copy);
- ``draw`` ``source`` [``target``]: a phase 1 choice (Jesse Jones, Pedro Ramirez);
- ``discard`` ``card``: phase 3, one card at a time down to your life;
- ``ability`` ``cards`` [``target``]: Sid Ketchum discards two cards for one life; Chuck Wengam
  (no cards), José Delgado (one blue card); Doc Holyday names a ``target`` (no cards: his two
  discards are asked next);
- ``end_turn``: end phase 2 (phase 3 follows when the hand is over the limit);
- ``upgrade`` [``target``]: buy the upgrade of the card being played once (more) (Armed &
  Dangerous; ``target``: an extra target); ``choose`` ``target``: who gets a passed Bomb.

``check`` raises before anything is written; ``apply`` then mutates and runs the engine
until a player must decide. ``legal_actions`` filters candidates through ``check``.
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import EngineReason, MalformedAction, RuleError
from tabletop_server.service.games.bang import versions
from tabletop_server.service.games.bang.abilities import EMPTY_HAND_ABILITIES, ability_of
from tabletop_server.service.games.bang.effects import EFFECTS
from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.pending import REQUESTS, STEPS
from tabletop_server.service.games.bang.play import (
    check_play,
    check_use,
    play_from_hand,
    play_type,
    use_from_play,
)
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import player, top_request
from tabletop_server.service.games.bang.tables import CARDS, CHARACTERS, TYPE_OF
from tabletop_server.service.games.bang.targeting import candidate_targets
from tabletop_server.service.games.bang.turn import end_turn, next_turn

# The fields each action type takes ("type" besides); any other field is malformed.
FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"card", "target", "pick"}), "respond": frozenset({"card"}), "barrel": frozenset({"card"}),
    "pass": frozenset(), "choose": frozenset({"card", "pick", "target"}), "draw": frozenset({"source", "target"}),
    "discard": frozenset({"card"}), "ability": frozenset({"cards", "target"}), "end_turn": frozenset(),
    "use": frozenset({"card", "target", "pick"}), "upgrade": frozenset({"target"})}
# The same with "type": one subset test per action finds a well-formed one, without building the set of extras.
WITH_TYPE: dict[str, frozenset[str]] = {kind: fields | {"type"} for kind, fields in FIELDS.items()}
ACTION_TYPES = frozenset(FIELDS)
CARD_FIELDS = {"play": True, "respond": True, "choose": True, "discard": True, "use": True}
FREE_PLAY = frozenset({"play", "use", "ability", "end_turn"})
# Most engine steps one action may trigger; a longer chain is a bug, never a loop (tested).
MAX_CHAIN = 500


def to_act(state: State) -> list[int]:
    """The one seat whose decision is awaited (none once the game is over)."""
    if state["phase"] == "over":
        return []
    req = top_request(state)
    return [req["seat"]] if req is not None else [state["turn"]]


def check_rules_version(state: State) -> None:
    """Refuse a game created with rules this code does not play (a rolling upgrade's other replicas)."""
    version = state.get("v")
    if version not in versions.SUPPORTED_RULES_VERSIONS:
        raise RuleError(Reason.RULES_VERSION_UNSUPPORTED,
                        f"This game follows rules {version!r}; this server plays "
                        f"{', '.join(sorted(versions.SUPPORTED_RULES_VERSIONS))}. Retry later (a replica of the release that plays it), or create a new game",
                        rules_version=str(version))


def check(state: State, seat: int, action: Action) -> None:
    """Raise RuleError (or MalformedAction) unless ``seat`` may take ``action`` now."""
    check_rules_version(state)
    if state["phase"] == "over":
        raise RuleError(EngineReason.GAME_FINISHED, "The game is over")
    kind = _check_shape(state, action)
    req = top_request(state)
    if req is not None:
        if seat != req["seat"]:
            raise RuleError(Reason.NOT_YOUR_DECISION, f"Seat {req['seat']} must answer first",
                            waiting_for=req["seat"], request=req["kind"])
        if kind == "ability":
            _check_ability_target(state, seat, action)
        handler = REQUESTS[req["kind"]]
        if kind == "ability" and handler.abilities:
            ability_of(state, seat).check_activate(state, seat, action)
            return
        if kind not in handler.answers:
            raise RuleError(Reason.WRONG_ANSWER, f"Answer the pending {req['kind']} request", request=req["kind"])
        if kind == "choose":
            _check_choose_field(handler.choose_field, action)
        if kind == "respond":
            _check_in_hand(state, seat, action["card"])
        handler.check(state, req, action)
        return
    if seat != state["turn"]:
        raise RuleError(EngineReason.NOT_YOUR_TURN, f"It is seat {state['turn']}'s turn")
    if kind == "ability":
        _check_ability_target(state, seat, action)
    if kind not in FREE_PLAY:
        raise RuleError(Reason.WRONG_ANSWER, "Nothing is asked of you: play a card or end your turn")
    if kind == "play":
        check_play(state, seat, action)
    elif kind == "use":
        check_use(state, seat, action)
    elif kind == "ability":
        ability_of(state, seat).check_activate(state, seat, action)


def apply(state: State, seat: int, action: Action) -> list[Event]:
    """Check, then mutate and run the engine until someone must decide."""
    check(state, seat, action)
    events: list[Event] = []
    req = top_request(state)
    kind = action["type"]
    if kind == "ability" and (req is None or REQUESTS[req["kind"]].abilities):
        ability_of(state, seat).activate(state, seat, action, events)
    elif req is not None:
        REQUESTS[req["kind"]].resolve(state, req, action, events)
    elif kind == "play":
        play_from_hand(state, seat, action, events)
    elif kind == "use":
        use_from_play(state, seat, action, events)
    else:
        events.append({"kind": "end_turn", "seat": seat})
        end_turn(state, seat, events)
    advance(state, events)
    return events


def advance(state: State, events: list[Event]) -> None:
    """Run engine steps and forced answers until a player has a real choice."""
    for _ in range(MAX_CHAIN):
        if state["phase"] == "over":
            state["pending"].clear()
            return
        _empty_hands(state, events)
        pending = state["pending"]  # its top entry, and ``player`` below, read inline: every engine step asks
        if not pending:
            if state["phase"] == "play" and state["p"][state["turn"]]["alive"]:
                return
            next_turn(state, events)
            continue
        req = pending[-1]
        if req["seat"] is None:
            pending.pop()
            STEPS[req["kind"]].run(state, req, events)
            continue
        if not state["p"][req["seat"]]["alive"]:
            pending.pop()
            continue
        handler = REQUESTS[req["kind"]]
        if handler.settled(state, req):
            pending.pop()
            continue
        only = handler.auto(state, req)
        if only is None:
            return
        handler.resolve(state, req, only, events)
    raise RuleError(Reason.CHAIN_LIMIT, f"More than {MAX_CHAIN} engine steps for one action")


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now (a game of unsupported rules raises, as ``apply`` does)."""
    check_rules_version(state)
    if seat not in to_act(state):
        return []
    req = top_request(state)
    abilities = ability_of(state, seat).activations(state, seat)
    if req is not None:
        handler = REQUESTS[req["kind"]]
        return handler.legal(state, req) + (abilities if handler.abilities else [])
    out: list[Action] = []
    p = player(state, seat)
    for card in dict.fromkeys(p["hand"]):
        out += _card_plays(state, seat, card)
    for card in p["table"]:
        if TYPE_OF[card].use is not None:
            out += _card_uses(state, seat, card)
    return out + abilities + [{"type": "end_turn"}]


# Helpers

def _card_plays(state: State, seat: int, card: str) -> list[Action]:
    t = play_type(state, seat, card)
    handler = EFFECTS[TYPE_OF[card].effect]
    out: list[Action] = []
    for target in candidate_targets(state, seat, t):
        base: Action = {"type": "play", "card": card}
        if target is not None:
            base["target"] = target
        picks = handler.picks(state, seat, target) if target is not None else []
        for action in ([_picking(base, p) for p in picks] if picks else [base]):
            try:
                check_play(state, seat, action)
            except RuleError:
                continue
            out.append(action)
    return out


def _card_uses(state: State, seat: int, card: str) -> list[Action]:
    use = TYPE_OF[card].use
    if use is None or use.missed or use.when != "own_turn":
        return []
    handler = EFFECTS[use.effect]
    out: list[Action] = []
    for target in candidate_targets(state, seat, use):
        base: Action = {"type": "use", "card": card}
        if target is not None:
            base["target"] = target
        picks = handler.picks(state, seat, target) if target is not None else []
        for action in ([_picking(base, p) for p in picks if p != card] if picks else [base]):
            try:
                check_use(state, seat, action)
            except RuleError:
                continue
            out.append(action)
    return out


def _picking(base: Action, pick: str) -> Action:
    action = base.copy()
    action["pick"] = pick
    return action


def _check_shape(state: State, action: Action) -> str:
    kind = action.get("type") if isinstance(action, dict) else None
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise MalformedAction(Reason.UNKNOWN_ACTION, f"Unknown action type {kind!r}", field="type")
    if not WITH_TYPE[kind].issuperset(action):
        extra = set(action) - WITH_TYPE[kind]
        raise MalformedAction(Reason.UNEXPECTED_FIELD, f"{kind} takes no {', '.join(sorted(extra))}",
                              field=min(extra))
    if kind in ("choose", "upgrade") and "target" in action:
        target = action["target"]
        if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < len(state["p"]):
            raise MalformedAction(Reason.BAD_TARGET, f"No seat {target!r} at this table", field="target")
        if kind == "choose" and ("card" in action or "pick" in action):
            raise MalformedAction(Reason.UNEXPECTED_FIELD, "choose takes a target alone, without a card or pick",
                                  field="target")
    elif kind == "choose" and "pick" in action and "card" not in action:
        pick = action["pick"]
        if not isinstance(pick, str) or (pick not in ("hand", "character") and not _is_card(pick)
                                         and pick not in CHARACTERS):
            raise MalformedAction(Reason.BAD_TARGET, "pick must be 'hand', 'character', a card id in play or a "
                                  "character key", field="pick")
    elif kind in CARD_FIELDS and not _is_card(action.get("card")):
        raise MalformedAction(Reason.UNKNOWN_CARD, f"Unknown card id {action.get('card')!r}", field="card")
    if kind == "ability":
        cards = action.get("cards")
        if not isinstance(cards, list) or not all(_is_card(c) for c in cards):
            raise MalformedAction(Reason.UNKNOWN_CARD, "cards must be card ids", field="cards")
    if kind == "draw":
        _check_draw_shape(state, action)
    if kind == "barrel" and "card" in action and not _is_card(action["card"]):
        raise MalformedAction(Reason.UNKNOWN_CARD, "card must be a Barrel in play, or omitted for Jourdonnais",
                              field="card")
    if kind in ("play", "use") and "pick" in action and not isinstance(action["pick"], str):
        raise MalformedAction(Reason.BAD_TARGET, "pick must be 'hand' or a card id in play", field="pick")
    return kind


def _check_ability_target(state: State, seat: int, action: Action) -> None:
    """Only an ability that takes a target (Doc Holyday) accepts one; it must then be a seat number."""
    if "target" not in action:
        return
    if not ability_of(state, seat).takes_target:
        raise MalformedAction(Reason.UNEXPECTED_TARGET, "Your character's ability takes no target", field="target")


def _check_draw_shape(state: State, action: Action) -> None:
    target = action.get("target")
    if action.get("source") not in ("deck", "discard", "player"):
        raise MalformedAction(Reason.UNKNOWN_ACTION, "source must be deck, discard or player", field="source")
    if action["source"] == "player" and target is None:
        raise MalformedAction(Reason.MISSING_TARGET, "Name the player to draw from", field="target")
    if target is not None and (not isinstance(target, int) or not 0 <= target < len(state["p"])):
        raise MalformedAction(Reason.BAD_TARGET, f"No seat {target!r}", field="target")


def _check_choose_field(wanted: str, action: Action) -> None:
    """A ``choose`` names the field its request asks for (``card``, ``pick`` or ``target``), never another."""
    if wanted not in action:
        raise MalformedAction(Reason.UNKNOWN_CARD if wanted == "card" else Reason.MISSING_TARGET,
                              f"Answer this request with choose.{wanted}", field=wanted)
    for other in ("card", "pick", "target"):
        if other != wanted and other in action:
            raise MalformedAction(Reason.UNEXPECTED_FIELD, f"This request takes choose.{wanted}, not {other}",
                                  field=other)


def _is_card(value: object) -> bool:
    return isinstance(value, str) and value in CARDS


def _check_in_hand(state: State, seat: int, card: str) -> None:
    if card not in player(state, seat)["hand"]:
        raise RuleError(Reason.CARD_NOT_IN_HAND, "That card is not in your hand", card=card)


def _empty_hands(state: State, events: list[Event]) -> None:
    """Suzy Lafayette draws as soon as her hand is empty, but not during a Duel (its request's
    ``holds_empty_hands``; RULINGS BANG-102).

    Nor while she is dying: S2 says she loses the Duel's life and "only then" draws, and
    like Bart Cassidy's draw (RULINGS BANG-085) it comes after the dying window, so it
    can never supply the Beer that saves her from a lost Duel at her last life.
    """
    for p in state["p"]:  # ``ability_of``, inlined: asked after every engine step, for every empty hand
        if p["alive"] and not p["hand"] and CHARACTERS[p.get("as") or p["char"]].ability in EMPTY_HAND_ABILITIES:
            break
    else:  # the common case: no empty hand of an ability that reacts to one, no pending entry read
        return
    if any(r["seat"] is not None and REQUESTS[r["kind"]].holds_empty_hands for r in state["pending"]):
        return
    dying = {r["seat"] for r in state["pending"] if r["kind"] == "dying"}
    for seat, p in enumerate(state["p"]):
        if p["alive"] and not p["hand"] and seat not in dying:
            ability_of(state, seat).on_empty_hand(state, seat, events)
