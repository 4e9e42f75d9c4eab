"""TLS on the gRPC port (service/api/tls.py): real certificates, real handshakes, real calls.

A throwaway CA, a server certificate for localhost/127.0.0.1 (and one for another name) and a client
certificate are made with the openssl command line for each run (tests/pki.py). Checked: a TLS port serves verified
clients and refuses plaintext ones; a client CA makes certificates mandatory; the plaintext health port
answers health only; the REST facade's channel verifies (with a name override); half settings and
unreadable files refuse to start instead of serving plaintext.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.client import TabletopClient, TabletopError

from bench.http_load import free_port  # below the ephemeral range
from tabletop_server.service.api import tls
from tabletop_server.service.api.server import create_server
from tabletop_server.service.config import Config
from tests.conftest import GrpcServer, start_grpc, suite_config
from tests.pki import make_pki

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")
pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command line")


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def tls_server(redis_url: str, pki: Path) -> Iterator[GrpcServer]:
    server = start_grpc(redis_url, grpc_tls_cert_file=str(pki / "server.pem"),
                        grpc_tls_key_file=str(pki / "server-key.pem"))
    yield server
    server.running.stop(0)


def test_tls_port_serves_a_verified_client(tls_server: GrpcServer, pki: Path) -> None:
    credentials = grpc.ssl_channel_credentials(root_certificates=(pki / "ca.pem").read_bytes())
    with TabletopClient(tls_server.target, credentials=credentials, timeout=10) as client:
        created = client.create_game("ttr-europe", 2, ["a", "b"])
        seat = client.for_seats(created.credentials)[0]
        assert seat.legal_actions(created.game.name).actions  # a token in metadata over TLS


def test_tls_port_refuses_plaintext_and_unknown_cas(tls_server: GrpcServer, pki: Path) -> None:
    with TabletopClient(tls_server.target, timeout=3) as plain, pytest.raises(TabletopError) as raised:
        plain.list_rulesets()
    assert raised.value.code == grpc.StatusCode.UNAVAILABLE
    wrong = grpc.ssl_channel_credentials(root_certificates=(pki / "stranger.pem").read_bytes())
    with TabletopClient(tls_server.target, credentials=wrong, timeout=3) as client, \
            pytest.raises(TabletopError) as raised:
        client.list_rulesets()
    assert raised.value.code == grpc.StatusCode.UNAVAILABLE


def test_client_ca_makes_a_client_certificate_mandatory(redis_url: str, pki: Path) -> None:
    server = start_grpc(redis_url, grpc_tls_cert_file=str(pki / "server.pem"),
                        grpc_tls_key_file=str(pki / "server-key.pem"), grpc_tls_client_ca_file=str(pki / "ca.pem"))
    roots = (pki / "ca.pem").read_bytes()
    try:
        without = grpc.ssl_channel_credentials(root_certificates=roots)
        with TabletopClient(server.target, credentials=without, timeout=3) as client, \
                pytest.raises(TabletopError) as raised:
            client.list_rulesets()
        assert raised.value.code == grpc.StatusCode.UNAVAILABLE
        mutual = grpc.ssl_channel_credentials(root_certificates=roots,
                                              private_key=(pki / "client-key.pem").read_bytes(),
                                              certificate_chain=(pki / "client.pem").read_bytes())
        with TabletopClient(server.target, credentials=mutual, timeout=10) as client:
            assert {r.id for r in client.list_rulesets()} >= {"ttr-europe", "bang"}
    finally:
        server.running.stop(0)


def test_health_port_is_plaintext_and_health_only(redis_url: str, pki: Path) -> None:
    port = free_port()
    server = start_grpc(redis_url, grpc_tls_cert_file=str(pki / "server.pem"),
                        grpc_tls_key_file=str(pki / "server-key.pem"), grpc_health_port=port)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            answer = health.Check(health_pb2.HealthCheckRequest(service="tabletop.v1.GameService"), timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
            with TabletopClient(f"127.0.0.1:{port}", channel=channel) as client, \
                    pytest.raises(TabletopError) as raised:
                client.list_rulesets()
            assert raised.value.code == grpc.StatusCode.UNIMPLEMENTED  # no game API in plaintext
            server.running.set_serving(False)  # the health port tells the main server's status
            answer = health.Check(health_pb2.HealthCheckRequest(service="tabletop.v1.GameService"), timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.NOT_SERVING
    finally:
        server.running.stop(0)


def test_loopback_port_beside_tls_is_plaintext_on_127_0_0_1(redis_url: str, pki: Path) -> None:
    config = Config(redis_url=redis_url, grpc_tls_cert_file=str(pki / "server.pem"),
                    grpc_tls_key_file=str(pki / "server-key.pem"))
    running = create_server(config, host="127.0.0.1", port=0, loopback=True)
    try:
        assert running.loopback_port and running.loopback_port != running.port
        with TabletopClient(f"127.0.0.1:{running.loopback_port}", timeout=10) as client:
            assert client.list_rulesets()
    finally:
        running.stop(0)
    plain = create_server(suite_config(redis_url), host="127.0.0.1", port=0, loopback=True)
    plain.stop(0)
    assert plain.loopback_port == 0  # no TLS: the port itself is plaintext, nothing extra opens


def test_facade_channel_verifies_with_a_server_name(redis_url: str, pki: Path) -> None:
    server = start_grpc(redis_url, grpc_tls_cert_file=str(pki / "other.pem"),
                        grpc_tls_key_file=str(pki / "other-key.pem"))
    try:
        base = Config(grpc_target=server.target, grpc_target_tls_ca_file=str(pki / "ca.pem"))
        with TabletopClient(server.target, channel=tls.facade_channel(base, []), timeout=3) as client, \
                pytest.raises(TabletopError):
            client.list_rulesets()  # 127.0.0.1 is not the certificate's name
        named = replace(base, grpc_target_tls_server_name="tabletop.example")
        with TabletopClient(server.target, channel=tls.facade_channel(named, []), timeout=10) as client:
            assert client.list_rulesets()
    finally:
        server.running.stop(0)


@pytest.mark.parametrize("settings", [
    {"grpc_tls_cert_file": "cert.pem"},
    {"grpc_tls_key_file": "key.pem"},
    {"grpc_tls_client_ca_file": "ca.pem"},
    {"grpc_target_tls_server_name": "tabletop.example"},
])
def test_half_a_tls_setting_is_refused(settings: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="TABLETOP_GRPC_T"):
        Config(**settings)  # type: ignore[arg-type]


def test_unreadable_certificate_refuses_to_start(redis_url: str, pki: Path) -> None:
    with pytest.raises(ValueError, match="TABLETOP_GRPC_TLS_KEY_FILE='/nonexistent/key.pem' cannot be read"):
        start_grpc(redis_url, grpc_tls_cert_file=str(pki / "server.pem"), grpc_tls_key_file="/nonexistent/key.pem")
    with pytest.raises(ValueError, match="holds no PEM block"):
        start_grpc(redis_url, grpc_tls_cert_file=str(pki / "server.ext"),
                   grpc_tls_key_file=str(pki / "server-key.pem"))


def test_serve_terminates_tls_and_its_facade_still_answers(redis_url: str, pki: Path, tmp_path: Path) -> None:
    """``tabletop serve --grpc-tls-cert/--grpc-tls-key``: TLS for gRPC clients, REST through the loopback."""
    grpc_port, http_port = free_port(), free_port()
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0", "TABLETOP_LOG_FORMAT": "text"}
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-m", "tabletop_server.service.cli", "serve", "--grpc-port", str(grpc_port),
                                    "--http-port", str(http_port), "--grpc-tls-cert", str(pki / "server.pem"),
                                    "--grpc-tls-key", str(pki / "server-key.pem")],
                                   cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            credentials = grpc.ssl_channel_credentials(root_certificates=(pki / "ca.pem").read_bytes())
            with TabletopClient(f"localhost:{grpc_port}", credentials=credentials, timeout=5) as client:
                created = _eventually(lambda: client.create_game("ttr-europe", 2, ["a", "b"]), log)
            body = _eventually(lambda: _get(f"http://127.0.0.1:{http_port}/v1/{created.game.name}"), log)
            assert json.loads(body)["game"]["name"] == created.game.name  # the facade reached the TLS service
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(30)
    assert "(TLS)" in log.read_text()


def test_serve_refuses_a_client_ca(pki: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "tabletop_server.service.cli", "serve", "--grpc-tls-cert", str(pki / "server.pem"),
                             "--grpc-tls-key", str(pki / "server-key.pem"),
                             "--grpc-tls-client-ca", str(pki / "ca.pem")],
                            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
                            env={**os.environ, "TABLETOP_REDIS_URL": "redis://127.0.0.1:1"})
    assert result.returncode != 0 and "is not for `tabletop serve`" in result.stderr


# Helpers

def _eventually(call: Callable[[], T], log: Path, timeout: float = 30.0) -> T:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except (TabletopError, OSError):
            if time.monotonic() > deadline:
                raise AssertionError(log.read_text(errors="replace")) from None
            time.sleep(0.3)


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return str(response.read().decode())
