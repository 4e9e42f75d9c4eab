"""Redis AUTH, ACL users, TLS, and a replica's refusals, against real redis-server processes.

Every refusal reaches clients as UNAVAILABLE with a stable reason and one log line,
never INTERNAL, and a refused handshake leaves no connection open on the server.
Uses Debian's /usr/bin/redis-server (built with TLS), started on free loopback ports.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.store import resp
from tests.conftest import start_grpc
from tests.helpers import create_game, error_info
from tests.ops.cluster import free_port

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
OLDER_THAN_THE_REFUSALS = 2  # seconds (CLIENT LIST's age is whole seconds)
pytestmark = pytest.mark.skipif(not Path(REDIS_SERVER).exists(), reason="needs a redis-server binary")


class Server:
    """One redis-server on a free loopback port, with extra arguments; ``admin`` talks to it."""

    def __init__(self, *args: str, port: int | None = None, conf: str = "", **admin: object) -> None:
        self.port = port or free_port()
        self.dir = tempfile.mkdtemp(prefix="tabletop-redis-")
        self.proc = subprocess.Popen([REDIS_SERVER, *([conf] if conf else []), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                                      "--save", "", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.admin = redis.Redis(host="127.0.0.1", port=self.port, **admin)  # type: ignore[arg-type]
        deadline = time.time() + 10
        while True:
            try:
                self.admin.ping()
                return
            except redis.ResponseError:  # up, but refusing (a replica without its primary)
                return
            except redis.ConnectionError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)

    def lingering(self, seconds: float) -> list[dict[str, str]]:
        """Connections other than the admin's own open for ``seconds`` or more. A refused handshake's
        connection is closed at the refusal, but a server that keeps retrying (its sweepers, every 50 ms here)
        holds a new one for the moment of each handshake, which a bare count catches (seen under load)."""
        own = self.admin.client_id()
        return [c for c in self.admin.client_list() if int(c["id"]) != own and int(c["age"]) >= seconds]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.admin.close()


def refused(url: str, left_open: Server | None = None, **config: object) -> grpc.RpcError:
    """The error a CreateGame gets from a gRPC server on ``url``.

    With ``left_open``, also checks (while the gRPC server still runs) that no
    connection to that Redis server stayed open after the refusals.
    """
    server = start_grpc(url, **config)
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            for _ in range(3):
                with pytest.raises(grpc.RpcError) as err:
                    stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2))
            if left_open is not None:
                # The earlier server of the test (plays) closes its connections as it stops, on its own loop: on
                # a loaded machine that can land a moment after; a connection the refusals left open never goes.
                # Connections younger than the refusals are the retrying server's handshakes of the moment.
                time.sleep(OLDER_THAN_THE_REFUSALS)
                deadline = time.monotonic() + 10
                while left_open.lingering(OLDER_THAN_THE_REFUSALS) and time.monotonic() < deadline:
                    time.sleep(0.1)
                assert left_open.lingering(OLDER_THAN_THE_REFUSALS) == [], left_open.admin.client_list()
            return err.value
    finally:
        server.running.stop(0)


def plays(url: str, **config: object) -> None:
    """A game can be created and read through a gRPC server on ``url``."""
    server = start_grpc(url, **config)
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game, _ = create_game(stub, seats=2)
            assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == game.version
    finally:
        server.running.stop(0)


def assert_unavailable(err: grpc.RpcError, reason: str, caplog: pytest.LogCaptureFixture) -> None:
    assert err.code() == grpc.StatusCode.UNAVAILABLE, err
    assert error_info(err).reason == reason
    lines = [r.getMessage() for r in caplog.records if r.name == "tabletop.errors"]
    assert any(line.startswith(f"game store unavailable: {reason}") for line in lines), lines


@pytest.fixture()
def secured() -> Iterator[Server]:
    """A server with ``requirepass`` and an ACL user ``alice`` (password ``wonderland``)."""
    server = Server("--requirepass", "s3cret", "--user", "alice", "on", ">wonderland", "~*", "&*", "+@all",
                    password="s3cret")
    yield server
    server.stop()


def test_requirepass(secured: Server, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tabletop.errors")
    plays(f"redis://:s3cret@127.0.0.1:{secured.port}")
    assert_unavailable(refused(f"redis://:wrong@127.0.0.1:{secured.port}", secured), "STORE_AUTH_FAILED", caplog)
    caplog.clear()
    assert_unavailable(refused(f"redis://127.0.0.1:{secured.port}"), "STORE_AUTH_FAILED", caplog)  # NOAUTH


def test_acl_user(secured: Server, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tabletop.errors")
    plays(f"redis://alice:wonderland@127.0.0.1:{secured.port}")
    assert_unavailable(refused(f"redis://alice:looking-glass@127.0.0.1:{secured.port}", secured), "STORE_AUTH_FAILED", caplog)


def test_replica_refuses_writes_as_read_only(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tabletop.errors")
    primary = Server()
    replica = Server("--replicaof", "127.0.0.1", str(primary.port))
    try:
        assert_unavailable(refused(f"redis://127.0.0.1:{replica.port}"), "STORE_READ_ONLY", caplog)
    finally:
        replica.stop()
        primary.stop()


def test_replica_without_primary_is_master_down(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tabletop.errors")
    orphan = Server("--replicaof", "127.0.0.1", str(free_port()), "--replica-serve-stale-data", "no")
    try:
        server = start_grpc(f"redis://127.0.0.1:{orphan.port}")
        try:
            with grpc.insecure_channel(server.target) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                with pytest.raises(grpc.RpcError) as err:
                    stub.GetGame(svc.GetGameRequest(name="games/abcdefghij"))
        finally:
            server.running.stop(0)
        assert_unavailable(err.value, "STORE_MASTER_DOWN", caplog)
    finally:
        orphan.stop()


def test_a_refusal_does_not_cut_the_commands_behind_it() -> None:
    """A refusal on the shared connection leaves the commands already in flight on it their replies.

    The client drops a connection that said MASTERDOWN or READONLY (the primary may have
    moved). A slower command sent behind the refused one (here ``DEBUG SLEEP``, which a
    replica serves even without its primary) must still get its own reply, not
    "connection lost", which would report STORE_UNAVAILABLE instead of the real reason.
    """
    debug = ("--enable-debug-command", "yes")
    primary = Server()
    replica = Server("--replicaof", "127.0.0.1", str(primary.port), *debug)
    orphan = Server("--replicaof", "127.0.0.1", str(free_port()), "--replica-serve-stale-data", "no", *debug)

    async def refused_then_slow(port: int, *refused: object) -> list[object]:
        client = resp.Redis(f"redis://127.0.0.1:{port}")

        async def slow() -> object:
            await asyncio.sleep(0)  # sent in a write of its own, so Redis answers the refusal first
            return await client.execute("DEBUG", "SLEEP", "0.3")

        try:
            await client.execute("DEBUG", "SLEEP", "0")  # connected before the race starts
            replies = await asyncio.gather(client.execute(*refused), slow(), return_exceptions=True)
            replies += await asyncio.gather(client.execute(*refused), return_exceptions=True)
            return replies
        finally:
            await client.close()

    try:
        first, slow, again = asyncio.run(refused_then_slow(replica.port, "SET", "tabletop:ro", "1"))
        assert isinstance(first, redis.exceptions.ReadOnlyError) and slow == b"OK", (first, slow)
        assert isinstance(again, redis.exceptions.ReadOnlyError), again  # a fresh connection, same answer
        first, slow, again = asyncio.run(refused_then_slow(orphan.port, "GET", "tabletop:md"))
        assert isinstance(first, resp.MasterDownError) and slow == b"OK", (first, slow)
        assert isinstance(again, resp.MasterDownError), again
    finally:
        for server in (orphan, replica, primary):
            server.stop()


@pytest.fixture(scope="module")
def certs() -> Path:
    """A CA and a server certificate for ``localhost`` only (no IP address in it)."""
    d = Path(tempfile.mkdtemp(prefix="tabletop-tls-"))

    def ssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
        "-subj", "/CN=Tabletop test CA")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    (d / "ext.cnf").write_text("subjectAltName=DNS:localhost\n")
    ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf")
    return d


def test_tls_with_ca_file_and_hostname_check(certs: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tabletop.errors")
    port = free_port()
    server = Server("--port", "0", "--tls-port", str(port), "--tls-cert-file", str(certs / "server.crt"),
                    "--tls-key-file", str(certs / "server.key"), "--tls-ca-cert-file", str(certs / "ca.crt"),
                    "--tls-auth-clients", "no", "--requirepass", "s3cret", port=port,
                    password="s3cret", ssl=True, ssl_ca_certs=str(certs / "ca.crt"), ssl_check_hostname=False)
    try:
        ca = str(certs / "ca.crt")
        plays(f"rediss://:s3cret@localhost:{port}", redis_tls_ca_file=ca)
        # the system's CAs do not know this one
        assert_unavailable(refused(f"rediss://:s3cret@localhost:{port}"), "STORE_UNAVAILABLE", caplog)
        # the certificate names localhost, not 127.0.0.1
        assert_unavailable(refused(f"rediss://:s3cret@127.0.0.1:{port}", redis_tls_ca_file=ca),
                           "STORE_UNAVAILABLE", caplog)
        caplog.clear()
        assert_unavailable(refused(f"rediss://:wrong@localhost:{port}", server, redis_tls_ca_file=ca), "STORE_AUTH_FAILED", caplog)
    finally:
        server.stop()
