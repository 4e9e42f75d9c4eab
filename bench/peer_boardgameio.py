"""boardgame.io, measured live beside Tabletop in the same run (issue 29).

The peer is boardgame.io 0.50.2's own server with its in-memory store, driven by its own client library
over socket.io, as a browser would (``bench/peers/boardgameio``: a one-move game, the server and a driver).
Its rules cost nothing, so its move is the framework's floor: socket, master, reducer, store, update.
Tabletop's move is durable (Redis) and runs a real rulebook; the ratio says what that costs.

The kit's packages come from the npm registry (``npm ci`` against the committed lock file) the first time;
without node and npm the figures are skipped, and the bench says so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

KIT = Path(__file__).resolve().parent / "peers" / "boardgameio"


def available() -> str:
    """Empty when the kit can run; otherwise why not (printed in place of the figures)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node and npm are not installed"
    if not (KIT / "node_modules" / "boardgame.io").is_dir():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=KIT,
                              capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            return f"npm ci failed in {KIT}: {done.stderr.strip()[-300:]}"
    return ""


class Peer:
    """The boardgame.io server in a process of its own, on the port it bound and printed."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(["node", "server.cjs"], cwd=KIT, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        assert self.proc.stdout is not None
        line = "-"
        while line and not line.startswith("ready "):  # its own log lines come first; "" is its exit
            line = self.proc.stdout.readline()
        if not line:
            self.proc.kill()
            raise RuntimeError(f"the boardgame.io server did not start: {line!r}")
        self.port = int(line.split()[1])

    def measure(self, seconds: float, concurrency: int) -> dict[str, Any]:
        """Moves per second, p50/p99 of a move's round trip and server CPU per move, at ``concurrency``."""
        done = subprocess.run(["node", "driver.cjs", str(self.port), str(self.proc.pid), str(seconds), str(concurrency)],
                              cwd=KIT, capture_output=True, text=True, timeout=120 + 2 * seconds, check=True)
        figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return figures

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
