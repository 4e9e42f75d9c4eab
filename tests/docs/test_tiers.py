"""Every test folder belongs to a tier (tests/conftest.py), and the README says how to run one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import TIER_OF_FOLDER, TIERS

TESTS = Path(__file__).resolve().parents[1]


def test_every_folder_with_tests_is_given_a_tier() -> None:
    folders = {p.relative_to(TESTS).parts[0] for p in TESTS.rglob("test_*.py") if p.parent != TESTS}
    assert folders, "the scan found no test folders"
    unmapped = sorted(folders - set(TIER_OF_FOLDER))
    assert not unmapped, f"add these tests/ folders to TIER_OF_FOLDER in tests/conftest.py: {unmapped}"
    assert set(TIER_OF_FOLDER.values()) <= set(TIERS)
    assert not list(TESTS.glob("test_*.py")), "tests sit in a folder of their tier, not in tests/ itself"


def test_each_test_carries_its_tier_marker(request: pytest.FixtureRequest) -> None:
    tiers = {mark.name for mark in request.node.iter_markers()} & set(TIERS)
    assert tiers == {"fast"}  # tests/docs is fast, and this test uses no Redis


def test_the_readme_says_how_to_run_one_tier() -> None:
    readme = (TESTS.parent / "README.md").read_text()
    assert "pytest -m fast -n 2" in readme
    for tier in TIERS:
        assert f"| `{tier}` |" in readme
