"""``service/signals.Stop``: a SIGTERM is seen whichever of the process's threads the kernel hands it to."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator

import pytest

from tabletop_server.service.signals import STEP_SECONDS, Stop


@pytest.fixture
def restored_handlers() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def test_a_sigterm_delivered_to_another_thread_ends_the_wait(restored_handlers: None) -> None:
    """The case a main thread blocked in ``threading.Event.wait()`` misses: the kernel may deliver a
    process-directed signal to any thread; this one goes to a worker thread on purpose."""
    stop = Stop()
    sent: list[float] = []

    def worker() -> None:
        time.sleep(0.3)  # the main thread is inside wait() by now (or the flag is simply seen sooner)
        sent.append(time.monotonic())
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)  # to this thread, not the main one

    thread = threading.Thread(target=worker)
    thread.start()
    assert stop.wait(30) is True
    seen = time.monotonic()
    thread.join()
    assert stop.is_set()
    assert seen - sent[0] < 10 * STEP_SECONDS + 1, "seen within a few steps of the signal, not at a timeout"


def test_sigint_sets_it_too_and_a_timeout_says_not_set(restored_handlers: None) -> None:
    stop = Stop()
    started = time.monotonic()
    assert stop.wait(0.25) is False and time.monotonic() - started >= 0.25
    signal.raise_signal(signal.SIGINT)
    assert stop.wait(0) is True and stop.is_set()


def test_set_by_hand_ends_a_wait_without_a_signal(restored_handlers: None) -> None:
    stop = Stop(signals=())
    threading.Timer(0.2, stop.set).start()
    assert stop.wait(30) is True
