"""Golden playthroughs replay exactly (see scripts/gen_playthroughs.py)."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_playthroughs", ROOT / "scripts" / "gen_playthroughs.py")
assert _spec and _spec.loader
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)
CASES = [(r, seats, seed) for r, games in gen.GAMES.items() for seats, seed in games]


@pytest.mark.parametrize("ruleset_id, seats, seed", CASES)
def test_playthrough_replays_exactly(ruleset_id: str, seats: int, seed: int) -> None:
    golden = gen.path(ruleset_id, seats, seed).read_text()
    now = gen.render(ruleset_id, seats, seed)
    if now != golden:
        diff = "".join(list(difflib.unified_diff(golden.splitlines(True), now.splitlines(True), "golden", "now"))[:40])
        pytest.fail(f"the rules now play {ruleset_id} seed {seed} differently; if intended, run "
                    f"scripts/gen_playthroughs.py and review the diff:\n{diff}")


@pytest.mark.parametrize("ruleset_id, seats, seed, version", [(r, *g) for r, games in gen.LEGACY.items() for g in games])
def test_a_game_of_an_earlier_rules_version_replays_as_it_was_dealt(ruleset_id: str, seats: int, seed: int,
                                                                    version: str) -> None:
    """The files were written by the release before issue 33 (SplitMix64): a stored game of those versions
    still deals and plays exactly so, while new games deal from SHAKE-256 (a different game)."""
    golden = gen.path(ruleset_id, seats, seed, version).read_text()
    assert golden.startswith(f"# {ruleset_id} ({version}),")
    assert gen.render(ruleset_id, seats, seed, version) == golden
    assert gen.render(ruleset_id, seats, seed) != golden


def test_playthroughs_end_and_the_check_can_fail() -> None:
    for ruleset_id, seats, seed in CASES:
        text = gen.path(ruleset_id, seats, seed).read_text()
        assert text.rstrip().endswith(": True"), f"{ruleset_id} seed {seed} did not end"
    assert gen.render("ttr-europe", 2, 101) != gen.render("ttr-europe", 2, 102)
