"""``buf curl`` (the buf-bin package) against the running server over Connect, gRPC-Web and gRPC.

An independent client, Buf's, reads the contract from the descriptor set the facade ships
(``rest/descriptors.binpb``): Connect and gRPC-Web go to the HTTP port, gRPC (HTTP/2 with
prior knowledge) to the gRPC port. A call and a refused call give the same answer on all three.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop_server.rest.app import create_app, serve
from tabletop_server.rest.server import HttpServer

ROOT = Path(__file__).resolve().parents[2]
VENV_BUF = ROOT / ".venv" / "bin" / "buf"
BUF = str(VENV_BUF) if VENV_BUF.is_file() else shutil.which("buf")
SCHEMA = ROOT / "rest" / "descriptors.binpb"
pytestmark = pytest.mark.skipif(BUF is None, reason="buf not installed: `pip install buf-bin` (in the test extras)")
PROTOCOLS = ["connect", "grpcweb", "grpc"]


@pytest.fixture(scope="module")
def http_server(grpc_server: Any) -> Iterator[HttpServer]:
    server = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    yield server
    server.close()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_buf_curl_lists_rulesets(protocol: str, http_server: HttpServer, grpc_server: Any) -> None:
    reply = _buf_curl(protocol, "ListRulesets", {}, http_server, grpc_server)
    assert reply.returncode == 0, reply.stderr
    assert "ttr-europe" in [ruleset["id"] for ruleset in json.loads(reply.stdout)["rulesets"]]


def test_buf_curl_sees_the_same_error_everywhere(http_server: HttpServer, grpc_server: Any) -> None:
    errors = []
    for protocol in PROTOCOLS:
        reply = _buf_curl(protocol, "CreateGame", {"ruleset": "nope", "seatCount": 2}, http_server, grpc_server)
        assert reply.returncode != 0, reply.stdout
        errors.append(json.loads(reply.stderr))
    assert errors[0]["code"] == "invalid_argument" and errors[0]["details"][0]["type"] == "google.rpc.ErrorInfo"
    assert errors[0] == errors[1] == errors[2]


# Helpers

def _buf_curl(protocol: str, method: str, data: dict[str, Any], http_server: HttpServer,
              grpc_server: Any) -> subprocess.CompletedProcess[str]:
    assert BUF is not None
    base = f"http://{grpc_server.target}" if protocol == "grpc" else http_server.url
    http2 = ["--http2-prior-knowledge"] if protocol == "grpc" else []
    return subprocess.run([BUF, "curl", "--schema", str(SCHEMA), "--protocol", protocol, *http2,
                           "--data", json.dumps(data), f"{base}/tabletop.v1.GameService/{method}"],
                          capture_output=True, text=True, timeout=60, check=False)
