"""Two volumes for a many-game test: a quick share in its own tier, the full count in ``slow`` (issue 25).

A property over random games checks the same thing in its first few games as in its thousandth; the
many more games only look further for a rare case. So the fast tier (``pytest -m fast``, the development
loop's 90 s) runs every such check over a few games, and the same test runs again with its full count,
marked ``slow``, in the README's command and CI: nothing is dropped, the volume only moves.

- :func:`volumes` parametrizes a test by its count: ``[quick]`` unmarked, ``[full]`` marked ``slow``;
- :func:`run_examples` runs a Hypothesis property with a given number of examples, for a test
  parametrized by :func:`volumes` (``settings`` is fixed when a test is decorated, so the count is
  applied to a fresh ``@given`` wrapper at each call).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _pytest.mark.structures import ParameterSet
from hypothesis import given, settings
from hypothesis.strategies import SearchStrategy


def volumes(quick: int, full: int, *before: Any, name: str = "") -> list[ParameterSet]:
    """``quick`` for the test's own tier, ``full`` marked ``slow``: ``@pytest.mark.parametrize("games", ...)``.

    ``before``: the values of parameters named before the count, for one case of several (``name`` its id):
    ``parametrize(("scenario", "games"), [*volumes(1, 3, one, name="one"), *volumes(2, 12, two, name="two")])``.
    """
    assert 0 < quick < full, (quick, full)
    prefix = f"{name}-" if name else ""
    return [pytest.param(*before, quick, id=f"{prefix}quick{quick}"),
            pytest.param(*before, full, id=f"{prefix}full{full}", marks=pytest.mark.slow)]


def run_examples(examples: int, check: Callable[..., Any], **strategies: SearchStrategy[Any]) -> None:
    """``check`` as a Hypothesis property over ``strategies`` (keyword arguments), ``examples`` examples,
    the suite's profile otherwise (``tests/conftest.py``: no deadline)."""
    settings(max_examples=examples)(given(**strategies)(check))()
