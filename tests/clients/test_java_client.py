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

from bench.nginx_proxy import ACCESS_LOG, Nginx
from tests.conftest import GrpcServer, start_grpc
from tests.pki import make_pki
from tests.tools import exclusive, needs

JAVA = Path(__file__).resolve().parents[2] / "clients" / "java"
TOOLS = ("protoc", "grpc_java_plugin", "javac", "java")


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    needs(*TOOLS, hint="Debian packages, see clients/java/build.sh", in_ci=True)


@pytest.fixture(scope="module")
def classpath() -> str:
    with exclusive(JAVA):  # build.sh writes clients/java/build: one worker (or run) at a time
        result = subprocess.run([str(JAVA / "build.sh")], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return (JAVA / "build" / "classpath.txt").read_text().strip()


def _tls_ready() -> bool:
    """netty-tcnative found by build.sh (Debian's libnetty-tcnative-java and -jni): Java's TLS provider here."""
    return bool((JAVA / "build" / "jvm-options.txt").read_text().strip())


def test_java_generated_classes_are_namespaced(classpath: str) -> None:
    generated = JAVA / "build" / "gen" / "dev" / "tabletop" / "v1"
    assert (generated / "GameServiceGrpc.java").is_file()  # the gRPC Java plugin ran
    assert (generated / "TtrEuropeView.java").is_file() and not (JAVA / "build" / "gen" / "tabletop").exists()
    assert (JAVA / "build" / "classes" / "dev" / "tabletop" / "example" / "PlayExample.class").is_file()


def test_a_second_build_with_nothing_changed_is_skipped(classpath: str, tmp_path: Path) -> None:
    """build.sh stamps what it built from; the same inputs again build nothing, another input builds anew."""
    with exclusive(JAVA):
        again = subprocess.run([str(JAVA / "build.sh")], capture_output=True, text=True, timeout=300, check=False)
        stamp = (JAVA / "build" / "stamp").read_text().strip()
        asked = subprocess.run([str(JAVA / "build.sh"), "--stamp"], capture_output=True, text=True, timeout=60,
                               check=True).stdout.strip()
    assert again.returncode == 0 and "up to date" in again.stdout, again.stdout + again.stderr
    assert asked == stamp and (JAVA / "build" / "classpath.txt").read_text().strip() == classpath
    plugin = tmp_path / "grpc_java_plugin"  # another code generator (one byte more) is another input
    plugin.write_bytes(Path(str(shutil.which("grpc_java_plugin"))).read_bytes() + b"\0")
    other = subprocess.run([str(JAVA / "build.sh"), "--stamp"], capture_output=True, text=True, timeout=60, check=True,
                           env={**os.environ, "GRPC_JAVA_PLUGIN": str(plugin)}).stdout.strip()
    assert other != stamp


def test_java_example_plays_against_the_server(classpath: str, grpc_server: GrpcServer,
                                               stub: object) -> None:
    fields = _play(classpath, grpc_server.target)
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


def test_java_client_names_the_game_of_each_call_for_routing(classpath: str, grpc_server: GrpcServer,
                                                              tmp_path: Path) -> None:
    """``GameRouting``: every call that names a game carries ``x-tabletop-game: <id>`` (an ingress hashes on it,
    deploy/README.md "Game-affinity routing"), none other does; read from the access log of an nginx between."""
    needs("nginx", hint="Debian's nginx (.ci/run installs it)", in_ci=True)
    with Nginx([int(grpc_server.target.rsplit(":", 1)[1])], prefix=tmp_path) as (target, _):
        fields = _play(classpath, target)
    game = next(f for f in fields if "created" in f)["created"].removeprefix("games/")
    calls = {tuple(line.rsplit("/", 1)[-1].split()) for line in (tmp_path / ACCESS_LOG).read_text().splitlines()}
    assert calls == {("ListRulesets", "-"), ("CreateGame", "-"), ("JoinGame", game), ("GetGame", game),
                     ("ListLegalActions", game), ("SubmitAction", game), ("WatchGame", game), ("GetGameLog", game)}


def test_java_example_plays_over_tls(classpath: str, redis_url: str, tmp_path: Path) -> None:
    """``TabletopClient.secure``: the JVM's trust store (here holding the test CA) verifies the server."""
    if not (_tls_ready() and shutil.which("openssl") and shutil.which("keytool")):
        assert not os.environ.get("CI"), "CI installs netty-tcnative, openssl and the JDK (.ci/run)"
        pytest.skip("needs netty-tcnative (libnetty-tcnative-java, -jni), openssl and keytool")
    pki = make_pki(tmp_path)
    server = start_grpc(redis_url, grpc_tls_cert_file=str(pki / "server.pem"),
                        grpc_tls_key_file=str(pki / "server-key.pem"))
    store = tmp_path / "trust.p12"
    subprocess.run(["keytool", "-importcert", "-noprompt", "-alias", "tabletop-test-ca", "-file", str(pki / "ca.pem"),
                    "-keystore", str(store), "-storetype", "PKCS12", "-storepass", "changeit"],
                   check=True, capture_output=True, timeout=60)
    try:
        trusted = [f"-Djavax.net.ssl.trustStore={store}", "-Djavax.net.ssl.trustStorePassword=changeit",
                   f"@{JAVA / 'build' / 'jvm-options.txt'}"]
        fields = _play(classpath, f"localhost:{server.port}", "--tls", jvm=trusted)
        assert {"error": "FAILED_PRECONDITION", "reason": "NOT_YOUR_TURN", "domain": "tabletop.dev"} in fields
        refused = subprocess.run(["java", f"@{JAVA / 'build' / 'jvm-options.txt'}", "-cp", classpath, "dev.tabletop.example.PlayExample",
                                  f"localhost:{server.port}", "--tls"],  # the default trust store: no test CA
                                 capture_output=True, text=True, timeout=120, check=False)
        assert refused.returncode != 0 and "UNAVAILABLE" in refused.stderr
    finally:
        server.running.stop(0)


# Helpers

def _play(classpath: str, target: str, *args: str, jvm: tuple[str, ...] | list[str] = ()) -> list[dict[str, str]]:
    """Runs the example; one dict per printed line of ``key=value`` pairs."""
    result = subprocess.run(["java", *jvm, "-cp", classpath, "dev.tabletop.example.PlayExample", target, *args],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return [dict(part.split("=", 1) for part in line.split()) for line in result.stdout.splitlines()]
