"""The Java client (clients/java) generated, compiled and played against the real gRPC server.

Runs ``clients/java/build.sh`` as a developer would (Debian's protoc, grpc_java_plugin and jars;
the grpc-netty transport), then the example against the session's server, and checks each step
it prints against what the server holds. Skips when the Debian packages are absent, except in CI
(``CI`` set), where .ci/run installs them and a missing tool is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tabletop.v1 import game_pb2, game_service_pb2

from tests.conftest import GrpcServer

JAVA = Path(__file__).resolve().parents[2] / "clients" / "java"
TOOLS = ("protoc", "grpc_java_plugin", "javac", "java")
MISSING = [tool for tool in TOOLS if shutil.which(tool) is None]

pytestmark = pytest.mark.skipif(bool(MISSING) and not os.environ.get("CI"),
                                reason=f"not installed: {MISSING} (Debian packages, see clients/java/build.sh)")


@pytest.fixture(scope="module")
def classpath() -> str:
    result = subprocess.run([str(JAVA / "build.sh")], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return (JAVA / "build" / "classpath.txt").read_text().strip()


def test_java_generated_classes_are_namespaced(classpath: str) -> None:
    generated = JAVA / "build" / "gen" / "dev" / "tabletop" / "v1"
    assert (generated / "GameServiceGrpc.java").is_file()  # the gRPC Java plugin ran
    assert (generated / "TtrEuropeView.java").is_file() and not (JAVA / "build" / "gen" / "tabletop").exists()
    assert (JAVA / "build" / "classes" / "dev" / "tabletop" / "example" / "PlayExample.class").is_file()


def test_java_example_plays_against_the_server(classpath: str, grpc_server: GrpcServer,
                                               stub: object) -> None:
    result = subprocess.run(["java", "-cp", classpath, "dev.tabletop.example.PlayExample", grpc_server.target],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    fields = [dict(part.split("=", 1) for part in line.split()) for line in lines]
    assert {"ruleset": "ttr-europe"} in fields and {"ruleset": "bang"} in fields
    created = next(f for f in fields if "created" in f)
    assert created["status"] == "GAME_STATUS_WAITING"  # two of three seats named
    assert next(f for f in fields if "joined" in f) == {"joined": "2", "status": "GAME_STATUS_ACTIVE"}
    acted = [f for f in fields if "acted" in f]
    assert [f["acted"] for f in acted] == ["0", "1", "2"]
    assert all(f["version"] == f["retry_version"] for f in acted)  # the retried request id applied once
    error = next(f for f in fields if "error" in f)
    assert error == {"error": "FAILED_PRECONDITION", "reason": "NOT_YOUR_TURN", "domain": "tabletop.dev"}
    last = int(acted[-1]["version"])
    watched = [int(v) for v in next(f for f in fields if "watched" in f)["watched"].split(",")]
    assert watched == sorted(set(watched)) and watched[-1] == last
    # What the Java client did is what the server holds: nothing more was applied (retries, the refusal).
    game = stub.GetGame(game_service_pb2.GetGameRequest(name=created["created"]), timeout=10)  # type: ignore[attr-defined]
    assert game.game.version == last and game.game.status == game_pb2.GAME_STATUS_ACTIVE
    assert next(f for f in fields if "log_entries" in f) == {"log_entries": str(last), "complete": "false"}
