"""Waiting in the main thread for SIGTERM or SIGINT, so that a stop request is never missed.

``tabletop`` waits for a signal in its main thread while gRPC, uvloop and uvicorn work in others. The usual
``threading.Event`` with a handler that calls ``set()`` can miss or hang on a signal in two ways:

- Python runs a signal's handler in the main thread only, when the main thread next runs Python code. A main
  thread blocked in ``Event.wait()`` with no timeout sits in a lock; when the kernel delivers the signal to
  another of the process's threads, that lock is not interrupted and the handler never runs.
- A handler that calls ``Event.set()`` takes the event's lock. If it runs while the main thread is inside that
  event's ``wait`` (between taking and releasing the same, non-reentrant lock), the main thread waits on itself.

So the handler here only sets a flag, and the main thread sleeps in short steps and looks at it: a handler runs
at the latest one step after its signal, whichever thread the kernel chose.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterable
from types import FrameType

STEP_SECONDS = 0.1  # how long a wait sleeps before it looks at the flag again


class Stop:
    """Set by SIGTERM or SIGINT (the handlers are installed by the constructor), or by ``set()``."""

    def __init__(self, signals: Iterable[signal.Signals] = (signal.SIGTERM, signal.SIGINT)) -> None:
        self._seen = False
        for signum in signals:
            signal.signal(signum, self._handle)

    def set(self) -> None:
        self._seen = True

    def is_set(self) -> bool:
        return self._seen

    def wait(self, timeout: float | None = None) -> bool:
        """Until set, or ``timeout`` seconds (None: no limit); whether it is set."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._seen:
            step = STEP_SECONDS if deadline is None else min(STEP_SECONDS, deadline - time.monotonic())
            if step <= 0:
                return False
            time.sleep(step)
        return True

    # Helpers

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self._seen = True  # no lock, no logging: see the module docstring
