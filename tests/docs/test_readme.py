"""The README's walkthrough works as written: its shell blocks and its Python snippet run
against a real server (ports swapped for the test server's), and the two commands are there.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tabletop_server.rest.app import create_app, serve

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.DOTALL)


def test_readme_gives_the_two_commands_and_ci_runs_the_test_one() -> None:
    commands = _blocks(_section("Two commands"), "sh")
    assert len(commands) == 2
    assert "tabletop serve" in commands[0]
    assert commands[1].strip().endswith("pytest -n auto --cov")  # every tier, in parallel, with coverage
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert commands[1].strip().split("&& ")[-1] in ci


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_walkthrough_runs(grpc_server: Any, tmp_path: Path) -> None:
    http = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    try:
        blocks = (_blocks(_section("Five-minute walkthrough"), "sh") + _blocks(_section("The same over gRPC"), "sh")
                  + _blocks(_section("Connect and gRPC-Web"), "sh"))
        script = "set -euo pipefail\n" + "\n".join(blocks)
        script = (script.replace("localhost:8080", f"127.0.0.1:{http.port}")
                  .replace("localhost:50051", grpc_server.target).replace("curl -sN", "timeout 2 curl -sN")
                  .replace(".venv/bin/buf", str(Path(sys.executable).with_name("buf")))
                  .replace("rest/descriptors.binpb", str(ROOT / "rest" / "descriptors.binpb")))
        out = subprocess.run(["bash", "-c", script.replace("timeout 2 curl -sN", "{ timeout 2 curl -sN")
                              .replace(':watch" -H "authorization: Bearer $T0"',
                                       ':watch" -H "authorization: Bearer $T0" || true; }')],
                             cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
        assert out.returncode == 0, out.stderr
        assert '"reason":"NOT_YOUR_TURN"' in out.stdout.replace(" ", "")
        assert "event: event" in out.stdout
        assert '"entries"' in out.stdout
        assert '"viewerSeat": 0' in out.stdout  # buf curl's GetGame as seat 0 (buf prints defaults)
        assert out.stdout.count('"id": "ttr-europe"') >= 2  # ListRulesets over gRPC and over gRPC-Web
    finally:
        http.close()


def test_python_client_snippet_runs(grpc_server: Any) -> None:
    snippet = _blocks(_section("The same over gRPC"), "python")[0]
    namespace: dict[str, Any] = {}
    exec(snippet.replace("localhost:50051", grpc_server.target), namespace)  # noqa: S102 - our own README
