"""Fixtures for the deploy checks: the chart rendered with its defaults and with production values."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import helm_python
import pytest

from tests.deploy.chartkit import PRODUCTION_VALUES, Rendered, render_chart


@pytest.fixture(scope="session")
def production_values() -> dict[str, Any]:
    """deploy/helm/values-production.yaml, parsed by Helm's own YAML reader."""
    return helm_python.values_from_yaml(PRODUCTION_VALUES.read_text())


@pytest.fixture(scope="session")
def render() -> Callable[[dict[str, Any] | None], Rendered]:
    """The offline renderer, for tests that vary the values."""
    return render_chart


@pytest.fixture(scope="session")
def default_chart() -> Rendered:
    """The chart with its try-it defaults (bundled Redis)."""
    return render_chart({})


@pytest.fixture(scope="session")
def production_chart(production_values: dict[str, Any]) -> Rendered:
    """The chart with deploy/helm/values-production.yaml."""
    return render_chart(production_values)


@pytest.fixture(scope="session", autouse=True)
def _helm_handles_released() -> Iterator[None]:
    """Every native chart handle opened by these tests is closed again."""
    yield
    assert helm_python.open_handles_count() == 0
