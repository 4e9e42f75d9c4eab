"""No card or character name in a BANG! mechanic (issue 30, DESIGN 18).

What the Bomb, Jail, Dynamite, a weapon or a character needs from a generic module is a row flag or a
registered hook, written in the card's or character's own module: a request's wire kind and private offer
(``RequestKind.shown_as``, ``private_offer``), a Duel's hold on emptied hands (``holds_empty_hands``), a
card that answers the dying window (``damage.REVIVES``), a weapon's cancelled shot (``Shot.cancelled``),
how a card plays (``Ability.plays_as``), the reason an ignored card gives (``abilities.ability_name``).
This test reads every mechanic module and fails on any card, character or ability name written in quotes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tabletop_server.service.games.bang.tables import CHARACTERS, TYPES

# mutmut's copy (``mutants/``) rewrites every function of the sources these tests read.
pytestmark = [pytest.mark.fast, pytest.mark.skipif("mutants" in Path(__file__).parts, reason="reads the sources")]

WING = Path(__file__).resolve().parents[3] / "service" / "games" / "bang"
# Modules whose business is names: the data and its tables, the bots' card values, the state's types
# (every pending kind, some named after a card or character), the card families and the characters.
NOT_MECHANICS = {"catalog.py", "counts.py", "bots.py", "layout.py", "tables.py", "bot_roles.py", "__init__.py"}
# Protocol words that are also card names: the ``barrel`` action and the ``jail`` event kind are wire
# vocabulary (protos/tabletop/v1/bang.proto), ``heal`` and ``equip`` event kinds, ``green`` a card colour.
WIRE_WORDS = {"barrel", "jail", "heal", "equip", "green"}


def mechanic_modules() -> list[Path]:
    return [p for p in sorted(WING.glob("*.py")) if p.name not in NOT_MECHANICS] + [WING / "effects" / "__init__.py"]


def names() -> set[str]:
    out = set(TYPES) | set(CHARACTERS) | {c.ability for c in CHARACTERS.values()}
    return out - {"bang", "missed"} - WIRE_WORDS  # BANG! and Missed! are the game's own verbs (a shot, an answer)


def named_in(path: Path) -> list[str]:
    """Each string of the module's code (not its docstrings or comments) that is a card or character name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [f"{path.name}:{node.lineno} {node.value}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and node.value in names()]


def test_no_mechanic_module_names_a_card_or_a_character() -> None:
    assert len(mechanic_modules()) >= 24
    found = [hit for path in mechanic_modules() for hit in named_in(path)]
    assert found == []


def test_the_check_sees_a_name() -> None:
    """It would catch the dying window naming the Beer, as it did."""
    path = WING / "damage.py"
    source = path.read_text(encoding="utf-8")
    assert 'TYPE_OF[card].effect != "beer"' not in source
    fake = Path(__file__).with_name("_named.py")
    try:
        fake.write_text('if TYPE_OF[card].effect != "beer":\n    pass\n', encoding="utf-8")
        assert named_in(fake) == ["_named.py:1 beer"]
    finally:
        fake.unlink()
