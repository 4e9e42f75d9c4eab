"""The chart against the real processes: what the pods would run, run here as plain processes.

No cluster and no container engine run here, so this is the closest check that the chart
and the service agree: each container's environment is assembled from the rendered
ConfigMap, Secret and env exactly as the kubelet would, the process is started through the
image's entrypoint script, and the probes the chart declares are performed by hand: the
native gRPC health check on ``tabletop.v1.GameService`` (readiness), a TCP connect
(liveness), ``/healthz`` and ``/readyz``, ``/metrics``. SIGTERM must turn readiness off and
end the process within the drain the chart budgets for.
"""

from __future__ import annotations

import base64
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from bench.http_load import free_port
from tests.deploy.chartkit import ROOT, Rendered, render_chart
from tests.helpers import bearer, create_game

ENTRYPOINT = ROOT / "deploy" / "docker" / "entrypoint.sh"
GAME_SERVICE = "tabletop.v1.GameService"
GRACE_SECONDS = 2
STARTUP_TIMEOUT = 30.0


@dataclass
class Pod:
    """One component's process, with the ports its probes use."""

    process: subprocess.Popen[bytes]
    env: dict[str, str]
    log: Path

    def port(self, name: str) -> int:
        return int(self.env[name])

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


@pytest.fixture(scope="module")
def rendered() -> Rendered:
    return _render_on_free_ports()


@pytest.fixture(scope="module")
def start(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Pod]]:
    """Starts a component as its pod would run it; every process is stopped at the end."""
    started: list[Pod] = []

    def _start(rendered: Rendered, component: str, **overrides: str) -> Pod:
        env = {**_container_env(rendered, component), **overrides}
        if "TABLETOP_REDIS_URL" in env:
            env["TABLETOP_REDIS_URL"] = redis_url  # the Secret's value, pointed at the test Redis
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
        env["HOME"] = env["TMPDIR"] = str(tmp_path_factory.mktemp(component))
        log = Path(env["HOME"]) / "output.log"
        args = _container(rendered, component)["args"]
        with log.open("wb") as out:
            process = subprocess.Popen(["sh", str(ENTRYPOINT), *args], env=env, cwd=env["HOME"],
                                       stdout=out, stderr=subprocess.STDOUT)
        pod = Pod(process, env, log)
        started.append(pod)
        return pod

    yield _start
    for pod in started:
        if pod.process.poll() is None:
            pod.process.kill()
            pod.process.wait(timeout=10)


@pytest.fixture(scope="module")
def grpc_pod(rendered: Rendered, start: Callable[..., Pod]) -> Pod:
    return _start_grpc(rendered, start)


@pytest.fixture(scope="module")
def rest_pod(rendered: Rendered, start: Callable[..., Pod], grpc_pod: Pod) -> Pod:
    return _start_rest(rendered, start, grpc_pod)


def test_grpc_pod_passes_its_probes_and_serves_metrics(grpc_pod: Pod, rendered: Rendered) -> None:
    container = _container(rendered, "grpc")
    probe = container["readinessProbe"]["grpc"]
    assert probe["port"] == grpc_pod.port("TABLETOP_GRPC_PORT")
    assert _health(probe["port"], probe["service"]) == "SERVING"
    assert _health(probe["port"], "") == "SERVING"
    socket.create_connection(("127.0.0.1", probe["port"]), timeout=5).close()  # liveness: tcpSocket
    status, body = _http_get(grpc_pod.port("TABLETOP_METRICS_PORT"), "/metrics")
    assert status == 200 and "tabletop_" in body
    # Nothing written to its working directory: in particular no embedded Redis data dir.
    assert sorted(os.listdir(grpc_pod.env["HOME"])) == ["output.log"]


def test_rest_pod_passes_its_probes(rest_pod: Pod, rendered: Rendered) -> None:
    container = _container(rendered, "rest")
    port = rest_pod.port("TABLETOP_HTTP_PORT")
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert _http_status(port, container[probe]["httpGet"]["path"]) == 200, probe


def test_rest_pod_serves_metrics(rest_pod: Pod) -> None:
    status, body = _http_get(rest_pod.port("TABLETOP_METRICS_PORT"), "/metrics")
    assert status == 200 and "# TYPE" in body


def test_watchers_at_the_cap_leave_the_pod_answering(start: Callable[..., Pod]) -> None:
    """Watchers up to the cap cannot starve the pod: health checks and reads still answer."""
    rendered = _render_on_free_ports({"maxWatchStreams": 4})
    pod = _start_grpc(rendered, start)
    with grpc.insecure_channel(f"127.0.0.1:{pod.port('TABLETOP_GRPC_PORT')}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub)
        # Deadlines: a stuck stream would otherwise keep the test waiting forever.
        watches = [stub.WatchGame(svc.WatchGameRequest(name=game.name), metadata=bearer(tokens[0]), timeout=20)
                   for _ in range(4)]
        try:
            for watch in watches:
                next(watch)  # the stream is open and holds its slot (and a Redis connection)
            extra = stub.WatchGame(svc.WatchGameRequest(name=game.name), metadata=bearer(tokens[0]), timeout=5)
            with pytest.raises(grpc.RpcError) as refused:
                next(extra)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert _health(pod.port("TABLETOP_GRPC_PORT"), GAME_SERVICE) == "SERVING"
            stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0]), timeout=5)
        finally:
            for watch in watches:
                watch.cancel()


def test_rest_liveness_answers_while_sse_watchers_are_open(rest_pod: Pod, grpc_pod: Pod) -> None:
    """SSE watches are capped below the REST threads, so 16 watchers never starve the probe."""
    with grpc.insecure_channel(f"127.0.0.1:{grpc_pod.port('TABLETOP_GRPC_PORT')}") as channel:
        game, tokens = create_game(game_service_pb2_grpc.GameServiceStub(channel))
    port = rest_pod.port("TABLETOP_HTTP_PORT")
    watchers = []
    try:
        for _ in range(16):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", f"/v1/{game.name}:watch", headers={
                "Authorization": f"Bearer {tokens[0]}", "Accept": "text/event-stream"})
            watchers.append(connection)
            connection.getresponse()  # 200 and streaming (or refused, were SSE watches capped)
        assert _http_get(port, "/healthz", timeout=2)[0] == 200
    finally:
        for connection in watchers:
            connection.close()


def test_sigterm_drains_within_the_termination_grace(start: Callable[..., Pod]) -> None:
    """SIGTERM a gRPC pod: readiness drops, it exits in time, and its REST pod turns unready."""
    rendered = _render_on_free_ports()
    grpc_pod = _start_grpc(rendered, start)
    rest_pod = _start_rest(rendered, start, grpc_pod)
    grace = _container_pod(rendered, "grpc")["terminationGracePeriodSeconds"]
    port = grpc_pod.port("TABLETOP_GRPC_PORT")
    started = time.monotonic()
    grpc_pod.process.send_signal(signal.SIGTERM)
    code = grpc_pod.process.wait(timeout=grace)
    elapsed = time.monotonic() - started
    assert code == 0, grpc_pod.output()
    assert elapsed <= GRACE_SECONDS + 5 < grace
    assert _health(port, GAME_SERVICE) != "SERVING"
    _wait_for(lambda: _http_status(rest_pod.port("TABLETOP_HTTP_PORT"), "/readyz") != 200, rest_pod)
    assert _http_status(rest_pod.port("TABLETOP_HTTP_PORT"), "/healthz") == 200  # alive, just unready
    rest_pod.process.send_signal(signal.SIGTERM)
    assert rest_pod.process.wait(timeout=grace) == 0, rest_pod.output()


# Helpers

def _render_on_free_ports(config: dict[str, Any] | None = None) -> Rendered:
    ports = _free_ports(3)
    return render_chart({
        "grpc": {"port": ports[0]}, "rest": {"port": ports[1]}, "metrics": {"port": ports[2]},
        "config": {"shutdownGraceSeconds": GRACE_SECONDS, "logFormat": "text", **(config or {})},
        "redis": {"url": "redis://placeholder:6379/0"},
    })


def _start_grpc(rendered: Rendered, start: Callable[..., Pod]) -> Pod:
    pod = start(rendered, "grpc")
    _wait_for(lambda: _health(pod.port("TABLETOP_GRPC_PORT"), GAME_SERVICE) == "SERVING", pod)
    return pod


def _start_rest(rendered: Rendered, start: Callable[..., Pod], grpc_pod: Pod) -> Pod:
    # In the cluster the target is the gRPC Service's DNS name; here it is loopback, and the
    # metrics port moves because both "pods" share one host.
    pod = start(rendered, "rest", TABLETOP_GRPC_TARGET=f"127.0.0.1:{grpc_pod.port('TABLETOP_GRPC_PORT')}",
                TABLETOP_METRICS_PORT=str(_free_ports(1)[0]))
    _wait_for(lambda: _http_status(pod.port("TABLETOP_HTTP_PORT"), "/readyz") == 200, pod)
    return pod


def _container_pod(rendered: Rendered, component: str) -> dict[str, Any]:
    pod: dict[str, Any] = rendered.component("Deployment", component)["spec"]["template"]["spec"]
    return pod


def _container(rendered: Rendered, component: str) -> dict[str, Any]:
    container: dict[str, Any] = _container_pod(rendered, component)["containers"][0]
    return container


def _container_env(rendered: Rendered, component: str) -> dict[str, str]:
    """The container's environment as the kubelet builds it: envFrom first, then env."""
    container = _container(rendered, component)
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update(rendered.named("ConfigMap", source["configMapRef"]["name"])["data"])
    for var in container["env"]:
        if "value" in var:
            env[var["name"]] = var["value"]
        elif "secretKeyRef" in var.get("valueFrom", {}):
            ref = var["valueFrom"]["secretKeyRef"]
            data = rendered.named("Secret", ref["name"])["data"][ref["key"]]
            env[var["name"]] = base64.b64decode(data).decode()
    return env


def _health(port: int, service: str) -> str:
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=2)
            return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))
    except grpc.RpcError as exc:
        return f"error: {exc.code()}"


def _http_get(port: int, path: str, timeout: float = 3) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as reply:
            return int(reply.status), reply.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return int(exc.code), ""
    except OSError:
        return 0, ""


def _http_status(port: int, path: str) -> int:
    return _http_get(port, path)[0]


def _wait_for(ready: Callable[[], bool], pod: Pod) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not ready():
        assert pod.process.poll() is None, f"exited with {pod.process.returncode}:\n{pod.output()}"
        assert time.monotonic() < deadline, f"not ready after {STARTUP_TIMEOUT}s:\n{pod.output()}"
        time.sleep(0.1)


def _free_ports(count: int) -> list[int]:
    return [free_port() for _ in range(count)]  # below the ephemeral range (bench/http_load.py)
