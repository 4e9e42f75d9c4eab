"""``tabletop serve`` tells a person where to go: the web client, the API explorer, the gRPC port (issue 26)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench.http_load import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_serve_says_where_the_web_client_the_docs_and_grpc_are(redis_url: str) -> None:
    http_port, grpc_port = free_port(), free_port()
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_REDIS_SAFETY": "warn",
           "TABLETOP_LOG_FORMAT": "text", "TABLETOP_METRICS_PORT": "0"}
    process = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "serve", "--host", "127.0.0.1",
                                "--grpc-port", str(grpc_port), "--http-port", str(http_port)],
                               stderr=subprocess.STDOUT, stdout=subprocess.PIPE, env=env, cwd=ROOT, text=True)
    lines: list[str] = []
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("ready:" in line for line in lines):
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
    finally:
        process.terminate()
        process.wait(30)
    ready = next((line for line in lines if "ready:" in line), "")
    base = f"http://127.0.0.1:{http_port}"
    assert f"web client at {base}/ " in ready and f"{base}/docs" in ready, lines
    assert f"port {grpc_port}" in ready
