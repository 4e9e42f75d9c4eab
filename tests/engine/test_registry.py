"""Games register themselves (issue 30): the engine names no game, and a new game package is offered by
being there and calling ``register``, with no line of the engine changed."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop_server.service.engine import registry
from tabletop_server.service.games import bang, ttr_europe

GAME = '''
from tabletop_server.service.engine.registry import register
from tabletop_server.service.engine.ruleset import RulesetInfo

INFO = RulesetInfo(id="made-up", display_name="Made up", min_seats=2, max_seats=2, rules_version="1",
                   proto_field="made_up", max_actions=10)
register(__name__, listed={listed})
'''


def test_the_engine_names_no_game() -> None:
    source = Path(registry.__file__).read_text(encoding="utf-8")
    for name in ("ttr_europe", "ttr-europe", "bang"):
        assert name not in source


def test_each_game_package_is_offered_in_its_place() -> None:
    assert [r.INFO.id for r in registry.all_rulesets()] == ["ttr-europe", "bang"]
    assert registry.get("ttr-europe") is ttr_europe and registry.get("bang") is bang
    assert registry.get("no-such-game") is None


@pytest.fixture
def games_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A second folder of game packages, discovered afresh; the registered games are restored after."""
    from tabletop_server.service import games

    monkeypatch.setattr(games, "__path__", [*games.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_REGISTERED", dict(registry._REGISTERED))
    monkeypatch.setattr(registry, "_discovered", False)
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("tabletop_server.service.games.made_up")]:
        del sys.modules[name]


def _package(folder: Path, name: str, source: str) -> None:
    (folder / name).mkdir()
    (folder / name / "__init__.py").write_text(textwrap.dedent(source), encoding="utf-8")


def test_a_new_game_package_registers_itself(games_folder: Path) -> None:
    _package(games_folder, "made_up", GAME.format(listed=3))
    _package(games_folder, "made_up_unfinished", "INFO = None  # still being written: never registers\n")
    assert [r.INFO.id for r in registry.all_rulesets()] == ["ttr-europe", "bang", "made-up"]
    found = registry.get("made-up")
    assert found is not None and found.__name__ == "tabletop_server.service.games.made_up"


def test_an_id_or_a_place_registered_twice_raises(games_folder: Path) -> None:
    _package(games_folder, "made_up", GAME.format(listed=1))
    with pytest.raises(ValueError, match="'made-up': place 1 in the list is taken"):
        registry.all_rulesets()
    with pytest.raises(ValueError, match="ruleset 'bang' is registered twice"):
        registry.register(bang, listed=9)
