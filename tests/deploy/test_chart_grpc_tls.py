"""The chart's gRPC TLS (grpc.tls) and gRPC Ingress (grpc.ingress), rendered offline.

The rendered objects are validated strictly in test_chart.py (scenario everything-on turns both on);
here: what each pod gets, where the readiness probe goes, and the combinations the chart refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import helm_python
import pytest

from tests.deploy.chartkit import Manifest, Rendered

TLS = {"enabled": True, "secretName": "grpc-cert"}


def test_grpc_pods_serve_tls_from_the_secret_and_probe_the_health_port(render: Callable[..., Rendered]) -> None:
    rendered = render({"grpc": {"tls": TLS}})
    pod = rendered.component("Deployment", "grpc")["spec"]["template"]["spec"]
    container = pod["containers"][0]
    env = _env(container)
    assert env["TABLETOP_GRPC_TLS_CERT_FILE"] == "/etc/tabletop/grpc-tls/tls.crt"
    assert env["TABLETOP_GRPC_TLS_KEY_FILE"] == "/etc/tabletop/grpc-tls/tls.key"
    assert env["TABLETOP_GRPC_HEALTH_PORT"] == "50052" and "TABLETOP_GRPC_TLS_CLIENT_CA_FILE" not in env
    assert {"name": "grpc-tls", "mountPath": "/etc/tabletop/grpc-tls", "readOnly": True} in container["volumeMounts"]
    volume = next(v for v in pod["volumes"] if v["name"] == "grpc-tls")
    assert volume["secret"]["secretName"] == "grpc-cert" and "items" not in volume["secret"]
    assert container["readinessProbe"]["grpc"]["port"] == 50052  # the kubelet's probe speaks no TLS
    assert {"name": "health", "containerPort": 50052, "protocol": "TCP"} in container["ports"]
    service = rendered.component("Service", "grpc")
    assert "appProtocol" not in service["spec"]["ports"][0]  # not h2c any more


def test_network_policy_lets_probes_reach_the_health_port(render: Callable[..., Rendered]) -> None:
    policy = render({"grpc": {"tls": TLS}, "networkPolicy": {"enabled": True}}).component("NetworkPolicy", "grpc")
    health = [rule for rule in policy["spec"]["ingress"] if rule["ports"] == [{"port": "health", "protocol": "TCP"}]]
    assert health == [{"ports": [{"port": "health", "protocol": "TCP"}]}]  # from anywhere: it serves health only


def test_rest_pods_verify_the_grpc_service_with_the_ca_only(render: Callable[..., Rendered]) -> None:
    rendered = render({"grpc": {"tls": {**TLS, "serverName": "grpc.example.com"}}})
    pod = rendered.component("Deployment", "rest")["spec"]["template"]["spec"]
    env = _env(pod["containers"][0])
    assert env["TABLETOP_GRPC_TARGET_TLS_CA_FILE"] == "/etc/tabletop/grpc-tls/ca.crt"
    assert env["TABLETOP_GRPC_TARGET_TLS_SERVER_NAME"] == "grpc.example.com"
    assert "TABLETOP_GRPC_TLS_KEY_FILE" not in env
    volume = next(v for v in pod["volumes"] if v["name"] == "grpc-tls")
    assert volume["secret"]["items"] == [{"key": "ca.crt", "path": "ca.crt"}]  # never the private key
    public = render({"grpc": {"tls": {**TLS, "caKey": ""}}}).component("Deployment", "rest")
    assert _env(public["spec"]["template"]["spec"]["containers"][0])["TABLETOP_GRPC_TARGET_TLS_CA_FILE"] \
        == "/etc/ssl/certs/ca-certificates.crt"
    assert "grpc-tls" not in {v["name"] for v in public["spec"]["template"]["spec"]["volumes"]}


def test_without_tls_nothing_changes(default_chart: Rendered) -> None:
    grpc = default_chart.component("Deployment", "grpc")["spec"]["template"]["spec"]
    assert grpc["containers"][0]["readinessProbe"]["grpc"]["port"] == 50051
    assert not any(name.startswith("TABLETOP_GRPC_TLS") for name in _env(grpc["containers"][0]))
    assert [v["name"] for v in grpc["volumes"]] == ["tmp"]
    assert default_chart.component("Service", "grpc")["spec"]["ports"][0]["appProtocol"] == "kubernetes.io/h2c"
    assert [i["metadata"]["name"] for i in default_chart.kinds("Ingress")] == []


def test_mutual_tls_needs_the_facade_pointed_elsewhere(render: Callable[..., Rendered]) -> None:
    mutual = {"grpc": {"tls": {**TLS, "requireClientCert": True}}}
    with pytest.raises(helm_python.HelmError, match="REST facade has no client certificate"):
        render(mutual)
    rendered = render({**mutual, "rest": {"grpcTarget": "grpc.other:443"}})
    env = _env(rendered.component("Deployment", "grpc")["spec"]["template"]["spec"]["containers"][0])
    assert env["TABLETOP_GRPC_TLS_CLIENT_CA_FILE"] == "/etc/tabletop/grpc-tls/ca.crt"
    rest = rendered.component("Deployment", "rest")["spec"]["template"]["spec"]
    assert "TABLETOP_GRPC_TARGET_TLS_CA_FILE" not in _env(rest["containers"][0])  # not this release's service


def test_tls_without_a_secret_is_refused(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match="grpc.tls.secretName"):
        render({"grpc": {"tls": {"enabled": True}}})


@pytest.mark.parametrize(("tls", "protocol"), [(False, "GRPC"), (True, "GRPCS")])
def test_grpc_ingress_speaks_grpc_to_the_pods(tls: bool, protocol: str, render: Callable[..., Rendered]) -> None:
    values: dict[str, Any] = {"grpc": {"ingress": {
        "enabled": True, "className": "nginx", "hosts": [{"host": "grpc.example.com"}],
        "annotations": {"nginx.ingress.kubernetes.io/proxy-read-timeout": "3600"},
        "tls": [{"secretName": "edge", "hosts": ["grpc.example.com"]}]}}}
    if tls:
        values["grpc"]["tls"] = TLS
    ingress = render(values).component("Ingress", "grpc")
    assert ingress["metadata"]["annotations"] == {"nginx.ingress.kubernetes.io/backend-protocol": protocol,
                                                  "nginx.ingress.kubernetes.io/proxy-read-timeout": "3600"}
    path = ingress["spec"]["rules"][0]["http"]["paths"][0]
    assert path["backend"]["service"]["port"] == {"name": "grpc"} and path["path"] == "/"
    assert ingress["spec"]["tls"] == [{"secretName": "edge", "hosts": ["grpc.example.com"]}]
    overridden = {"grpc": {"ingress": {**values["grpc"]["ingress"],
                                       "annotations": {"nginx.ingress.kubernetes.io/backend-protocol": "GRPCS"}}}}
    assert render(overridden).component("Ingress", "grpc")["metadata"]["annotations"] == {
        "nginx.ingress.kubernetes.io/backend-protocol": "GRPCS"}


def test_game_affinity_hashes_on_the_game_header(render: Callable[..., Rendered]) -> None:
    """grpc.ingress.gameAffinity: ingress-nginx's consistent hashing on x-tabletop-game, the header the clients
    send on every call that names a game (tests/ops/test_game_affinity.py runs the same key in nginx)."""
    ingress = {"enabled": True, "hosts": [{"host": "grpc.example.com"}]}
    plain = render({"grpc": {"ingress": ingress}}).component("Ingress", "grpc")["metadata"]["annotations"]
    assert "nginx.ingress.kubernetes.io/upstream-hash-by" not in plain
    routed = render({"grpc": {"ingress": {**ingress, "gameAffinity": True}}}).component("Ingress", "grpc")
    assert routed["metadata"]["annotations"] == {"nginx.ingress.kubernetes.io/backend-protocol": "GRPC",
                                                 "nginx.ingress.kubernetes.io/upstream-hash-by": "$http_x_tabletop_game"}
    keyed = {**ingress, "gameAffinity": True, "gameAffinityKey": "$tabletop_game_route"}
    annotations = render({"grpc": {"ingress": keyed}}).component("Ingress", "grpc")["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/upstream-hash-by"] == "$tabletop_game_route"
    with pytest.raises(helm_python.HelmError, match="gameAffinityKey"):
        render({"grpc": {"ingress": {**ingress, "gameAffinityKey": "x-tabletop-game"}}})  # a header name, no $


def test_grpc_ingress_without_hosts_is_refused(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match="grpc.ingress.hosts"):
        render({"grpc": {"ingress": {"enabled": True}}})


# Helpers

def _env(container: Manifest) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env", [])}
