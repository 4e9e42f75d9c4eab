"""The facade in its own process (``rest.process.spawn``): serves, drains on close, dies with its parent."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from bench.http_load import free_port
from tabletop_server.rest.process import spawn
from tests.rest.rest_api import Api

ROOT = Path(__file__).resolve().parents[2]


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in state  # exited, not yet reaped


def test_spawned_facade_serves_and_stops(grpc_server: Any) -> None:
    spawned = spawn(grpc_server.target, "127.0.0.1", free_port())
    try:
        api = Api(f"http://127.0.0.1:{spawned.port}")
        assert api.get("/v1/rulesets").status_code == 200
        name, tokens = api.create_game()
        assert api.get(f"/v1/{name}", tokens[0]).headers["ETag"] == '"1"'
    finally:
        spawned.close()
    assert spawned.process.returncode == 0  # drained and exited on SIGTERM


def test_spawned_facade_exits_when_its_parent_is_killed(grpc_server: Any) -> None:
    port = free_port()
    parent_code = textwrap.dedent(f"""
        import sys, time
        from tabletop_server.rest.process import spawn
        spawned = spawn({grpc_server.target!r}, "127.0.0.1", {port})
        print(spawned.process.pid, flush=True)
        time.sleep(60)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdout=subprocess.PIPE, env=env, cwd=ROOT)
    assert parent.stdout is not None
    child_pid = int(parent.stdout.readline())
    assert Api(f"http://127.0.0.1:{port}").get("/healthz").status_code == 200
    parent.kill()
    parent.wait(5)
    deadline = time.monotonic() + 10
    while not _gone(child_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child_pid), "the REST child outlived its parent"


def mark_app(app: Any) -> None:
    """A ``--setup`` hook for the test below: tags every response."""

    @app.after_request
    def tag(response: Any) -> Any:
        response.headers["X-Setup-Ran"] = "yes"
        return response


def test_setup_hook_instruments_the_child_app(grpc_server: Any) -> None:
    spawned = spawn(
        grpc_server.target, "127.0.0.1", free_port(), setup="tests.rest.test_rest_process:mark_app"
    )
    try:
        assert Api(f"http://127.0.0.1:{spawned.port}").get("/healthz").headers["X-Setup-Ran"] == "yes"
    finally:
        spawned.close()
