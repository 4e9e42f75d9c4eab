"""The shared reference data (``shared/reference``), where it is mounted: the facts the data rows were
copied from, so a test can check what the service serves against the source and not against itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

# Developers' machines mount it at /work/shared; CI lays a copy of shared/ beside the clone.
_ROOTS = (Path("/work/shared/reference"), Path(__file__).resolve().parents[2] / "shared" / "reference")


def load(relative: str) -> Any:
    """The reference file ``relative`` (e.g. ``ttr_europe.json``) as JSON; skips the test where it is absent."""
    for root in _ROOTS:
        if (root / relative).is_file():
            return json.loads((root / relative).read_text(encoding="utf-8"))
    pytest.skip(f"the shared reference data ({relative}) is not mounted here")
