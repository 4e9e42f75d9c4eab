"""The BANG! bots (issue 16): ``basic``, a plain gunslinger that knows friend from foe.

A bot sees only its seat's view (``service.engine.bots``); card names and what they do come from
the card tables, which are public data. ``basic`` scores every legal action and takes the best
(ties broken by the engine's generator): it draws cards first, puts equipment and green cards in
play (a weapon only when it reaches further), shoots, duels, jails and robs the foes of
``bot_roles.hostility`` (never a friend: a Deputy does not shoot his Sheriff), heals with Beer
only when low and keeps Missed! and Beer for defence: a shot is answered with a Barrel first,
then a Missed! effect from play, then the cheapest card that cancels it. Phase 3 throws away the
cards worth least. Works with and without Dodge City and Armed & Dangerous, at every seat count: it
puts orange cards in play like blue ones (the Bomb in front of a foe), pays its weapon's cube for
every BANG! card, buys upgrades that hurt foes or draw, pays from its character first and places
cubes on it, and ignores (Ms. Abigail) every card but a heal. A recharge cube it may decline
(AD-009, AD-011) it declines when its character is the only holder with room and a foe could take
the cube from there (Frankie Canton at the table, or the Rust card still to come), or when the
supply is nearly out (placing would leave fewer cubes than an orange card needs).
"""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf.message import Message
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.bots import Bot
from tabletop_server.service.engine.rng import Rng
from tabletop_server.service.engine.ruleset import Action
from tabletop_server.service.games.bang.bot_roles import hostility
from tabletop_server.service.games.bang.catalog import CardType
from tabletop_server.service.games.bang.tables import CARDS, KEY_OF, TYPE_OF

SKIP = -1.0  # an action basic never takes by choice (still taken when it is the only one)
FOE = 0.3  # hostility above which a seat is worth attacking
# From this turn on, each turn lowers that bar by PATIENCE_STEP for seats whose role is hidden.
PATIENCE_TURNS = 40
PATIENCE_STEP = 0.05

# How much a card in hand is worth keeping (phase 3 throws the lowest away; a General Store picks
# the highest). Unlisted cards are worth DEFAULT_VALUE.
VALUE = {"missed": 7, "dodge": 7, "beer": 7, "bang": 5, "wells_fargo": 6, "stagecoach": 5, "gatling": 5,
         "barrel": 5, "indians": 4, "duel": 4, "panic": 4, "cat_balou": 4, "mustang": 4, "hideout": 4,
         "whisky": 4, "punch": 4, "springfield": 4, "jail": 3, "scope": 3, "binocular": 3, "general_store": 3,
         "saloon": 3, "rag_time": 3, "brawl": 3, "tequila": 3, "dynamite": 0}
DEFAULT_VALUE = 4
SPADES_THAT_EXPLODE = frozenset("23456789")
DRAW_EFFECTS = frozenset({"draw_cards"})
STEAL_EFFECTS = frozenset({"panic", "cat_balou"})
SHOT_EFFECTS = frozenset({"bang", "derringer"})
# What Vera Custer copies, best first (any other character when none of them is in play).
COPY_FIRST = ("willy_the_kid", "slab_the_killer", "jourdonnais", "paul_regret", "bart_cassidy", "el_gringo")
# Armed & Dangerous: who takes cubes off a character, and the supply an orange card needs (cubes.DANGEROUS_CUBES).
CUBE_TAKERS = frozenset({"frankie_canton"})
LOW_SUPPLY = 3


class Seen:
    """What an action is judged on: the viewer, his foes and the table."""

    def __init__(self, view: bang_pb2.BangView, legal: list[Action]) -> None:
        self.view = view
        self.me = view.viewer_seat
        self.player = view.players[self.me]
        self.foes = hostility(view)
        self.hand = [KEY_OF[c.id] for c in view.hand]
        self.alive = sum(p.alive for p in view.players)
        # How many of the legal answers could cancel the pending shot.
        self.answers = sum(a["type"] in ("respond", "use", "barrel") for a in legal)
        # The holders a cube may be placed on or paid from (a PLACE_CUBES or PAY_CUBES request).
        self.holders = [a["pick"] for a in legal if a["type"] == "choose" and "pick" in a]

    def foe(self, seat: int) -> float:
        """Hostility towards ``seat`` (0 for oneself)."""
        return self.foes.get(seat, 0.0)

    def hurt(self) -> bool:
        """Whether a heal would do anything."""
        return self.player.life < self.player.max_life

    def low(self) -> bool:
        """Low on life: time for a Beer."""
        return self.player.life <= max(1, self.player.max_life // 2)

    def reach(self) -> int:
        """The range of the weapon in play (the Colt .45: 1)."""
        return max([TYPE_OF[c.id].weapon_range for c in self.player.in_play] + [1])


def basic(view: Message, legal: list[Action], rng: Rng) -> Action:
    """The best-scored legal action (see the module docstring)."""
    assert isinstance(view, bang_pb2.BangView)
    seen = Seen(view, legal)
    free = any(a["type"] == "end_turn" for a in legal)
    score: Callable[[Seen, Action], float] = free_play if free else answer
    scored = [score(seen, a) for a in legal]
    top = max(scored)
    best = [a for a, s in zip(legal, scored) if s == top]
    return best[rng.below(len(best))]


def free_play(seen: Seen, action: Action) -> float:
    """How good a phase-2 action is (end_turn: 0)."""
    kind = action["type"]
    if kind == "end_turn":
        return 0.0
    if kind == "ability":
        return ability(seen, action)
    ctype = TYPE_OF[action["card"]]
    if kind == "use":
        assert ctype.use is not None
        # A green card with a Missed! symbol is kept for defence.
        return SKIP if ctype.use.missed else effect(seen, ctype.use, action, spent=0)
    if ctype.effect == "equip":
        return equip(seen, ctype)
    if ctype.effect == "dangerous":
        target = action.get("target")
        if ctype.key == "bomb":
            return _attack(seen, target, 45.0) if target is not None and target != seen.me else SKIP
        return equip(seen, ctype)
    if ctype.effect == "green":
        return 65.0
    return effect(seen, ctype, action, spent=VALUE.get(ctype.key, DEFAULT_VALUE))


def effect(seen: Seen, ctype: CardType, action: Action, spent: int) -> float:
    """How good playing (or using) a card of this type is, less what the card was worth keeping."""
    name, target = ctype.effect, action.get("target")
    if name in DRAW_EFFECTS:
        return 100.0 - spent
    if name in SHOT_EFFECTS and target is not None:
        return _attack(seen, target, 50.0) - spent
    if name == "duel" and target is not None and "bang" in seen.hand:
        return _attack(seen, target, 35.0)
    if name == "jail" and target is not None:
        return _attack(seen, target, 40.0)
    if name in STEAL_EFFECTS and target is not None:
        return steal(seen, target, action.get("pick", "hand"))
    if name in ("gatling", "indians", "brawl"):
        total = sum(seen.foe(s) for s in seen.foes)
        return 40.0 + 10.0 * total if total > FOE else SKIP
    if name == "beer":
        return 55.0 if seen.low() and seen.hurt() and seen.alive > 2 else SKIP
    if name == "saloon":
        return 45.0 - spent if seen.hurt() or any(_hurt_friend(seen, s) for s in seen.foes) else SKIP
    if name == "heal":
        if target is None or target == seen.me:
            return 45.0 - spent if seen.hurt() else SKIP
        return 40.0 - spent if _hurt_friend(seen, target) else SKIP  # Tequila for one's Sheriff
    if name == "general_store":
        return 20.0
    return SKIP  # Dynamite, Missed! as BANG! aside, anything basic does not know


def equip(seen: Seen, ctype: CardType) -> float:
    """A blue card: a weapon only when it reaches further; other equipment always."""
    if ctype.key == "dynamite":
        return SKIP
    if ctype.weapon_range:
        better = ctype.weapon_range > seen.reach() or (
            ctype.passive.get("unlimited_bang") and seen.reach() == 1 and seen.hand.count("bang") >= 2)
        return 60.0 + ctype.weapon_range if better else SKIP
    return 70.0


def steal(seen: Seen, target: int, pick: str) -> float:
    """Panic!, Cat Balou and their green cousins: rob a foe, or free a friend from Jail or Dynamite."""
    if target == seen.me:
        return SKIP
    if pick == "hand":
        return _attack(seen, target, 40.0) if seen.view.players[target].hand_count else SKIP
    key = KEY_OF[pick]
    if key in ("jail", "dynamite"):
        return 45.0 if seen.foe(target) < 0 else SKIP
    return _attack(seen, target, 45.0 + VALUE.get(key, DEFAULT_VALUE))


def ability(seen: Seen, action: Action) -> float:
    """A character's activated ability: only the ones basic knows, when they pay."""
    char, cards = seen.player.character, action.get("cards", [])
    life = seen.player.life
    if char == "sid_ketchum":
        return 30.0 if seen.hurt() and (life <= 2 or len(seen.hand) > life + 1) else SKIP
    if char == "chuck_wengam":
        return 30.0 if life >= 4 else SKIP
    if char == "jose_delgado" and len(cards) == 1:
        return 30.0
    if char == "doc_holyday" and action.get("target") is not None and len(seen.hand) >= 4:
        return _attack(seen, action["target"], 40.0)
    return SKIP


def answer(seen: Seen, action: Action) -> float:
    """How good an answer to the pending request is (pass: 0 unless refusing is worse)."""
    request = seen.view.pending[-1] if seen.view.pending else None
    kind, kinds = action["type"], bang_pb2.BangRequestKind
    req = request.kind if request is not None else kinds.BANG_REQUEST_KIND_UNSPECIFIED
    card = action.get("card")
    if kind == "pass":
        if req == kinds.BANG_REQUEST_KIND_PLACE_CUBES:
            return 2.0 if _decline_cube(seen) else SKIP  # a recharge cube (AD-009, AD-011)
        return 0.0
    if kind == "barrel":
        return 90.0
    if kind == "use":
        return SKIP if req == kinds.BANG_REQUEST_KIND_REDRAW else 80.0  # Tumbleweed: basic lets a draw! stand
    if kind == "ability":
        if req == kinds.BANG_REQUEST_KIND_DRAW_FOR_CUBES:
            return 40.0  # Al Preacher: 2 cubes for a card
        if req == kinds.BANG_REQUEST_KIND_IGNORE and request is not None:
            return SKIP if TYPE_OF[request.source_card.id].effect == "heal" else 50.0  # Ms. Abigail
        return ability(seen, action) + (60.0 if req == kinds.BANG_REQUEST_KIND_DYING else 0.0)
    if kind == "upgrade":
        target = action.get("target")
        return 30.0 if target is None else _attack(seen, target, 30.0)
    if req == kinds.BANG_REQUEST_KIND_DUEL and request is not None:
        opponent = request.opponent_seat if request.opponent_seat != seen.me else request.source_seat
        return SKIP if seen.foe(opponent) < 0 and seen.player.life > 1 else 60.0 - _value(card)
    if kind == "respond":
        if req == kinds.BANG_REQUEST_KIND_BANG and request is not None and (
                request.missed_needed - request.missed_played > seen.answers):
            return SKIP  # Slab the Killer's shot this hand cannot cancel: keep the Missed!
        return 70.0 - _value(card)
    if kind == "discard":
        return 20.0 - _value(card)
    if kind == "draw":
        return _draw_source(seen, action)
    if kind == "choose":
        return _choose(seen, action, req)
    return SKIP


# Helpers


def _attack(seen: Seen, target: int, base: float) -> float:
    """Harming ``target``: worth more the fiercer the foe and the weaker he is; never a known friend.

    A seat whose role is hidden becomes a target as the game drags on: a Sheriff among two hidden
    Deputies and a hidden Outlaw (odds against shooting any of them) would otherwise wait forever,
    and so would they, and the game would never end (issue 16).
    """
    foe = seen.foe(target)
    hidden = seen.view.players[target].role == bang_pb2.BANG_ROLE_UNSPECIFIED
    late = max(0, seen.view.turn_number - PATIENCE_TURNS) * PATIENCE_STEP if hidden else 0.0
    if foe <= FOE - late:
        return SKIP
    return base + 20.0 * foe - 2.0 * seen.view.players[target].life


def _decline_cube(seen: Seen) -> bool:
    """Whether a recharge cube is better left in the supply: only the character has room and a foe
    could take it from there (Frankie Canton at the table; the one Rust, unless the bot can see it
    is spent or holds it), or placing it would leave the supply short of an orange card's cubes."""
    view = seen.view
    if view.cube_supply <= LOW_SUPPLY:
        return True
    if seen.holders != ["character"]:
        return False
    takers = any(p.alive and p.seat != seen.me and p.character in CUBE_TAKERS for p in view.players)
    rust_to_come = view.discard_top.id == "" or KEY_OF[view.discard_top.id] != "rust"
    return takers or (rust_to_come and "rust" not in seen.hand)


def _hurt_friend(seen: Seen, seat: int) -> bool:
    player = seen.view.players[seat]
    return seen.foe(seat) < 0 and player.role != bang_pb2.BANG_ROLE_UNSPECIFIED and player.life < player.max_life


def _value(card: str | None) -> int:
    return DEFAULT_VALUE if card is None else VALUE.get(KEY_OF[card], DEFAULT_VALUE)


def _draw_source(seen: Seen, action: Action) -> float:
    """Phase 1 (Jesse Jones, Pedro Ramirez): a foe's hand, a good discard, else the deck."""
    source, target = action["source"], action.get("target")
    if source == "player" and target is not None:
        return 20.0 if seen.foe(target) > FOE and seen.view.players[target].hand_count else SKIP
    if source == "discard":
        top = seen.view.discard_top.id
        return 15.0 if top and _value(top) >= 5 else SKIP
    return 10.0


def _choose(seen: Seen, action: Action, req: int) -> float:
    """A choice offered by a request: the card to keep, to put back, to count, or whom to copy."""
    kinds = bang_pb2.BangRequestKind
    card, pick = action.get("card"), action.get("pick")
    if req == kinds.BANG_REQUEST_KIND_KIT_CARLSON:
        return 10.0 - _value(card)  # the card put back: the one worth least
    if req == kinds.BANG_REQUEST_KIND_PICK and card is not None:
        return _lucky_card(card)
    if card is not None:
        return float(_value(card))  # General Store
    if req == kinds.BANG_REQUEST_KIND_PASS_BOMB and action.get("target") is not None:
        return _attack(seen, action["target"], 10.0)
    if pick is None:
        return SKIP
    if req in (kinds.BANG_REQUEST_KIND_PAY_CUBES, kinds.BANG_REQUEST_KIND_PLACE_CUBES):
        return 1.0 if pick == "character" else 0.5  # keep the orange cards' own cubes for their use
    if req == kinds.BANG_REQUEST_KIND_COPY_CHARACTER:
        return float(len(COPY_FIRST) - COPY_FIRST.index(pick)) if pick in COPY_FIRST else 0.0
    if req == kinds.BANG_REQUEST_KIND_VICTIM_CARD:
        victim = seen.view.pending[-1].opponent_seat
        if pick == "hand":
            return 1.0
        key = KEY_OF[pick]
        friendly = key in ("jail", "dynamite")
        return float(_value(pick)) if (seen.foe(victim) > 0) != friendly else 0.0
    # Pat Brennan: a card in play in front of anyone, instead of drawing.
    owner = next((p.seat for p in seen.view.players if any(c.id == pick for c in p.in_play)), seen.me)
    if KEY_OF[pick] in ("jail", "dynamite"):
        return 30.0 if seen.foe(owner) < 0 else SKIP
    return 25.0 if seen.foe(owner) > FOE and _value(pick) >= 4 else SKIP


def _lucky_card(card: str) -> float:
    """Lucky Duke's draw! card: Hearts pass every check; Spades 2-9 explode Dynamite."""
    sign = CARDS[card]
    if sign.suit == "hearts":
        return 3.0
    if sign.suit == "spades":
        return 0.0 if sign.rank in SPADES_THAT_EXPLODE else 1.5
    return 2.0


BOTS: dict[str, Bot] = {"basic": basic}
