"""What startup made stays out of the garbage collector's full collections (issue 26, item 4).

A full collection in an idle ``serve`` process scanned about 100,000 startup objects: 50 ms of CPU, during
which the event loop stood still, and under connection churn one ran every few seconds. Bounded, not timed:
the objects a full collection still scans.
"""

from __future__ import annotations

import gc
from pathlib import Path

from tabletop_server.service import cli


def test_startup_objects_are_frozen_out_of_full_collections() -> None:
    # what serve loads: the facade, the service, the rulesets
    import tabletop_server.rest.app
    import tabletop_server.service.api.server  # noqa: F401
    before = len(gc.get_objects())
    try:
        cli._freeze_startup_objects()
        assert gc.get_freeze_count() >= before // 2
        assert len(gc.get_objects()) < before // 10  # what a full collection still scans
    finally:
        gc.unfreeze()


def test_the_command_freezes_once_it_is_listening() -> None:
    source = Path(cli.__file__).read_text(encoding="utf-8")
    run = source[source.index("def _run("):source.index("def _supervise(")]
    assert run.index("_freeze_startup_objects()") < run.index("stop.wait()")
