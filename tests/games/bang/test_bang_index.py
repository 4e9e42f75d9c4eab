"""The BANG! card and character index (``docs/bang-index.md``, issue 30) is what ``scripts/bang_index.py``
prints from the code it ships with: a moved handler, a new card or a new hook changes it, and this fails
until it is regenerated. The index itself names real places: each file:line it gives is a ``class`` or
``def`` (or a decorated one) of the handler it names."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from scripts import bang_index

PROJECT = Path(__file__).resolve().parents[3]
INDEX = PROJECT / "docs" / "bang-index.md"


@functools.cache
def rendered() -> str:
    return bang_index.render()


def test_the_committed_index_is_the_generated_one() -> None:
    assert INDEX.read_text() == rendered(), \
        "docs/bang-index.md is stale: .venv/bin/python scripts/bang_index.py > docs/bang-index.md"


def test_every_card_and_character_is_indexed_with_its_handler() -> None:
    text = rendered()
    for key in bang_index.TYPES:
        assert f"(`{key}`)\n\n- row: " in text, key
    for key in bang_index.CHARACTERS:
        assert f"(`{key}`)\n\n- row: " in text and f"ability `{bang_index.CHARACTERS[key].ability}`" in text, key


def test_each_handler_place_is_a_definition() -> None:
    places = re.findall(r"(?:effect|hook|request|step|outcome|modifier|out|offer|BANG!|shot) `[^`]+`: (service/[\w/]+\.py):(\d+)",
                        rendered())
    assert len(places) > 150
    for path, line in set(places):
        text = (PROJECT / path).read_text().splitlines()[int(line) - 1].lstrip()
        assert text.startswith(("class ", "def ", "@")), f"{path}:{line}: {text}"


def test_the_bomb_and_the_bell_tower_each_live_in_one_module() -> None:
    """Issue 30's measure: a card's behaviour in one place (its effect family aside)."""
    bomb = bang_index.card_lines("bomb")
    assert {line.split(": ")[1].split(":")[0] for line in bomb if line.startswith(("draw!", "when", "request", "step"))} \
        == {"service/games/bang/effects/bomb.py"}
    tower = bang_index.card_lines("bell_tower")
    assert [line for line in tower if "bell_tower.py" in line and line.startswith(("use", "lasting"))] == tower[1:3]


def test_the_tumbleweed_bandolier_big_fifty_and_thunderer_each_live_in_one_module() -> None:
    """What each does beyond its row is registered in its own module, and no mechanic names it (the copy
    counts in ``counts.py`` are data)."""
    for key, registered in (("tumbleweed", ("redraw offer", "request", "step")), ("bandolier", ("extra BANG!",)),
                            ("big_fifty", ("weapon shot",)), ("thunderer", ("weapon shot",))):
        lines = bang_index.card_lines(key)
        own = [line for line in lines if line.startswith(registered)]
        assert own and {line.split(": ")[1].split(":")[0] for line in own} == {f"service/games/bang/effects/{key}.py"}
        named = next(line for line in lines if line.startswith("named in: "))
        assert {place.split(":")[0] for place in named.removeprefix("named in: ").split(", ")} \
            <= {"service/games/bang/counts.py", f"service/games/bang/effects/{key}.py"}, key
