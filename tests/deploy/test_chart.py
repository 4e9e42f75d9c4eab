"""The Helm chart (deploy/helm/tabletop): lint, offline render, strict schema validation, properties.

Every rendered built-in object is validated with kubernetes-validate --strict against two
Kubernetes versions: 1.29 (the chart's kubeVersion floor) and 1.37 (the newest schemas the
installed kubernetes-validate ships). CRD-typed objects (the ServiceMonitor) have no schema
there and are checked structurally instead.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import helm_python
import pytest
import yaml  # type: ignore[import-untyped]
from kubernetes_validate import utils as kv  # type: ignore[import-untyped]

from tests.deploy.chartkit import CHART, NAMESPACE, RELEASE, Manifest, Rendered, deep_merge

KUBE_VERSIONS = ("1.29.0", "1.37.0")
CRD_GROUPS = ("monitoring.coreos.com/",)

# Every optional part on, over the try-it defaults (bundled Redis), so each template renders.
EVERYTHING_ON: dict[str, Any] = {
    "image": {"digest": "sha256:" + "a" * 64},
    "imagePullSecrets": [{"name": "registry"}],
    "auth": {"apiKeys": ["k1", "k2"]},
    "otel": {"endpoint": "http://otel-collector.observability:4317", "protocol": "grpc",
             "resourceAttributes": "deployment.environment=test"},
    "extraEnv": [{"name": "EXTRA", "value": "1"}],
    "metrics": {"serviceMonitor": {"enabled": True, "labels": {"release": "prometheus"}}},
    "networkPolicy": {"enabled": True, "grpc": {"from": [{"namespaceSelector": {}}]}},
    "grpc": {"autoscaling": {"enabled": True, "targetMemoryUtilizationPercentage": 80},
             "pdb": {"enabled": True}, "priorityClassName": "high", "podLabels": {"team": "games"},
             "extraEnv": [{"name": "GRPC_ONLY", "value": "1"}],
             "tls": {"enabled": True, "secretName": "tabletop-grpc-tls", "serverName": "grpc.tabletop.example.com"},
             "ingress": {"enabled": True, "className": "nginx",
                         "hosts": [{"host": "grpc.tabletop.example.com"}],
                         "tls": [{"secretName": "tabletop-grpc-tls", "hosts": ["grpc.tabletop.example.com"]}]}},
    "rest": {"autoscaling": {"enabled": True}, "pdb": {"enabled": True, "maxUnavailable": None,
                                                       "minAvailable": 1},
             "ingress": {"enabled": True, "className": "nginx",
                         "hosts": [{"host": "tabletop.example.com", "paths": ["/"]}],
                         "tls": [{"secretName": "tabletop-tls", "hosts": ["tabletop.example.com"]}]}},
}
METRICS_OFF: dict[str, Any] = {"metrics": {"enabled": False},
                               "networkPolicy": {"egress": {"restrict": False}}}


def scenario_values(name: str, production_values: dict[str, Any]) -> dict[str, Any]:
    """The values of a named render scenario."""
    return {
        "default": {},
        "production": production_values,
        "everything-on": EVERYTHING_ON,
        "production-metrics-off": deep_merge(production_values, METRICS_OFF),
    }[name]


SCENARIOS = ("default", "production", "everything-on", "production-metrics-off")


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
@pytest.mark.parametrize("scenario", ("default", "production"))
def test_helm_lint_is_clean(scenario: str, kube_version: str, production_values: dict[str, Any]) -> None:
    report = helm_python.lint(CHART, scenario_values(scenario, production_values), strict=True,
                              namespace=NAMESPACE, kube_version=f"v{kube_version}")
    problems = [m for m in report["messages"] if m["severity"] >= 2]
    assert report["errors"] == [] and problems == [], report


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_builtin_object_validates_strictly(
    scenario: str, kube_version: str, production_values: dict[str, Any],
    render: Callable[[dict[str, Any]], Rendered],
) -> None:
    rendered = render(scenario_values(scenario, production_values))
    builtin = [doc for doc in rendered.docs if not doc["apiVersion"].startswith(CRD_GROUPS)]
    assert len(builtin) >= 8
    failures = []
    for doc in builtin:
        try:
            kv.validate(doc, kube_version, strict=True)
        except (kv.ValidationError, kv.SchemaNotFoundError) as exc:
            failures.append(f"{doc['kind']}/{doc['metadata']['name']}: {exc}")
    assert failures == []


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
def test_kubernetes_validate_cli_accepts_the_production_manifests(
    kube_version: str, production_chart: Rendered, tmp_path: Path,
) -> None:
    """The same check through the kubernetes-validate command line, as an operator would run it."""
    builtin = [doc for doc in production_chart.docs if not doc["apiVersion"].startswith(CRD_GROUPS)]
    manifest = tmp_path / "tabletop.yaml"
    manifest.write_text(yaml.safe_dump_all(builtin))
    cli = Path(sys.executable).parent / "kubernetes-validate"
    result = subprocess.run([str(cli), "--strict", "--quiet", "-k", kube_version, str(manifest)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    broken = deep_merge(production_chart.component("Deployment", "grpc"), {"spec": {"bogus": 1}})
    manifest.write_text(yaml.safe_dump_all([*builtin, broken]))
    result = subprocess.run([str(cli), "--strict", "--quiet", "-k", kube_version, str(manifest)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode != 0 and "bogus" in result.stdout + result.stderr


def test_strict_validation_rejects_an_unknown_field(default_chart: Rendered) -> None:
    """The validator is live: a misspelt field in a rendered Deployment is caught."""
    deployment = default_chart.component("Deployment", "grpc")
    broken = deep_merge(deployment, {"spec": {"template": {"spec": {"terminationGracePeriod": 30}}}})
    with pytest.raises(kv.ValidationError, match="terminationGracePeriod"):
        kv.validate(broken, KUBE_VERSIONS[0], strict=True)


def test_service_monitor_is_structurally_sound(production_chart: Rendered) -> None:
    monitor = production_chart.named("ServiceMonitor", f"{RELEASE}-tabletop")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["metadata"]["namespace"] == NAMESPACE
    assert set(monitor) == {"apiVersion", "kind", "metadata", "spec"}
    spec = monitor["spec"]
    assert set(spec) <= {"selector", "namespaceSelector", "endpoints", "podTargetLabels"}
    assert spec["namespaceSelector"] == {"matchNames": [NAMESPACE]}
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    services = [s for s in production_chart.kinds("Service")
                if _matches(spec["selector"]["matchLabels"], s["metadata"]["labels"])]
    assert [s["metadata"]["name"] for s in services] == [f"{RELEASE}-tabletop-metrics"]
    port_names = {p["name"] for p in services[0]["spec"]["ports"]}
    for endpoint in spec["endpoints"]:
        assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout"}
        assert endpoint["port"] in port_names and endpoint["path"] == "/metrics"
        assert _seconds(endpoint["scrapeTimeout"]) <= _seconds(endpoint["interval"])


def test_metrics_service_selects_tabletop_pods_only(default_chart: Rendered) -> None:
    selector = default_chart.component("Service", "metrics")["spec"]["selector"]
    selected = {name for name, labels in _pod_labels(default_chart).items() if _matches(selector, labels)}
    assert selected == {f"{RELEASE}-tabletop-grpc", f"{RELEASE}-tabletop-rest"}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_selectors_and_target_ports_match_the_pods(scenario: str, production_values: dict[str, Any],
                                                   render: Callable[[dict[str, Any]], Rendered]) -> None:
    """Each Service, PDB and NetworkPolicy selects exactly the pods meant, on ports they have."""
    rendered = render(scenario_values(scenario, production_values))
    pods = _pod_labels(rendered)
    ports = {name: _container_port_names(d) for name, d in _deployments(rendered).items()}
    for service in rendered.kinds("Service"):
        chosen = [n for n, labels in pods.items() if _matches(service["spec"]["selector"], labels)]
        assert chosen, f"Service {service['metadata']['name']} selects no pods"
        for port in service["spec"]["ports"]:
            assert all(port["targetPort"] in ports[n] for n in chosen), (service["metadata"]["name"], port)
    for kind in ("PodDisruptionBudget", "NetworkPolicy"):
        for obj in rendered.kinds(kind):
            key = "podSelector" if kind == "NetworkPolicy" else "selector"
            chosen = [n for n, labels in pods.items() if _matches(obj["spec"][key]["matchLabels"], labels)]
            assert chosen == [obj["metadata"]["name"]], (kind, obj["metadata"]["name"], chosen)
    for hpa in rendered.kinds("HorizontalPodAutoscaler"):
        assert hpa["spec"]["scaleTargetRef"]["name"] == hpa["metadata"]["name"] in pods


def test_grpc_and_rest_are_separate_deployments(default_chart: Rendered) -> None:
    grpc = _container(default_chart, "grpc")
    rest = _container(default_chart, "rest")
    assert grpc["args"] == ["grpc"] and rest["args"] == ["rest"]
    assert grpc["image"] == rest["image"] == "tabletop:0.1.0"
    assert {p["name"] for p in grpc["ports"]} == {"grpc", "metrics"}
    assert {p["name"] for p in rest["ports"]} == {"http", "metrics"}
    assert _env(rest)["TABLETOP_GRPC_TARGET"] == f"{RELEASE}-tabletop-grpc:50051"


def test_grpc_probes_use_the_native_grpc_health_check(default_chart: Rendered) -> None:
    grpc = _container(default_chart, "grpc")
    port = next(p["containerPort"] for p in grpc["ports"] if p["name"] == "grpc")
    assert grpc["readinessProbe"]["grpc"] == {"port": port, "service": "tabletop.v1.GameService"}
    # Liveness must not follow Redis health: an outage would restart every pod.
    assert grpc["livenessProbe"]["tcpSocket"] == {"port": "grpc"}
    assert grpc["startupProbe"]["tcpSocket"] == {"port": "grpc"}
    assert _env(grpc)["TABLETOP_GRPC_PORT"] == str(port)


def test_rest_probes_use_healthz_and_readyz(default_chart: Rendered) -> None:
    rest = _container(default_chart, "rest")
    assert rest["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert rest["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert rest["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_pod_is_locked_down(scenario: str, production_values: dict[str, Any],
                                  render: Callable[[dict[str, Any]], Rendered]) -> None:
    for name, deployment in _deployments(render(scenario_values(scenario, production_values))).items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] > 0, name
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        assert pod["automountServiceAccountToken"] is False, name
        # Service links would inject TABLETOP_GRPC_PORT=tcp://... for a release named tabletop.
        assert pod["enableServiceLinks"] is False, name
        for container in pod["containers"]:
            ctx = container["securityContext"]
            assert ctx["allowPrivilegeEscalation"] is False, name
            assert ctx["readOnlyRootFilesystem"] is True, name
            assert ctx["runAsNonRoot"] is True, name
            assert ctx["capabilities"] == {"drop": ["ALL"]}, name
            assert ctx["seccompProfile"] == {"type": "RuntimeDefault"}, name
            resources = container["resources"]
            assert set(resources["requests"]) == set(resources["limits"]) == {"cpu", "memory"}, name
            mounts = {m["mountPath"] for m in container["volumeMounts"]}
            assert mounts & {"/tmp", "/data"}, name


def test_redis_url_comes_from_the_existing_secret_in_production(production_chart: Rendered) -> None:
    grpc = _container(production_chart, "grpc")
    ref = _env_sources(grpc)["TABLETOP_REDIS_URL"]["secretKeyRef"]
    assert ref == {"name": "tabletop-redis", "key": "redis-url"}
    keys = _env_sources(grpc)["TABLETOP_API_KEYS"]["secretKeyRef"]
    assert keys == {"name": "tabletop-api-keys", "key": "api-keys"}
    assert production_chart.kinds("Secret") == []
    assert all(d["metadata"]["labels"].get("app.kubernetes.io/component") != "redis"
               for d in production_chart.docs)
    # The REST facade never talks to Redis and gets neither secret.
    assert not {"TABLETOP_REDIS_URL", "TABLETOP_API_KEYS"} & set(_env_sources(_container(production_chart, "rest")))


def test_try_it_defaults_point_at_the_bundled_redis(default_chart: Rendered) -> None:
    ref = _env_sources(_container(default_chart, "grpc"))["TABLETOP_REDIS_URL"]["secretKeyRef"]
    secret = default_chart.named("Secret", ref["name"])
    url = base64.b64decode(secret["data"][ref["key"]]).decode()
    assert url == f"redis://{RELEASE}-tabletop-redis:6379/0"
    default_chart.component("Service", "redis")
    redis = default_chart.component("Deployment", "redis")
    assert redis["spec"]["strategy"]["type"] == "Recreate"
    assert "TABLETOP_API_KEYS" not in _env_sources(_container(default_chart, "grpc"))


def test_an_external_url_gets_a_chart_made_secret_and_no_bundled_redis(render: Callable[..., Rendered]) -> None:
    rendered = render({"redis": {"url": "redis+cluster://redis.redis:6379"}, "auth": {"apiKeys": ["a", "b"]}})
    secrets = {s["metadata"]["name"]: s for s in rendered.kinds("Secret")}
    assert base64.b64decode(secrets[f"{RELEASE}-tabletop-redis-url"]["data"]["redis-url"]).decode() \
        == "redis+cluster://redis.redis:6379"
    assert base64.b64decode(secrets[f"{RELEASE}-tabletop-api-keys"]["data"]["api-keys"]).decode() == "a,b"
    assert "redis" not in {d["metadata"]["labels"].get("app.kubernetes.io/component") for d in rendered.docs}


def test_ingress_without_hosts_is_refused(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match="rest.ingress.hosts"):
        render({"rest": {"ingress": {"enabled": True}}})


def test_missing_redis_configuration_is_refused(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match="Redis is not configured"):
        render({"redis": {"bundled": {"enabled": False}}})


@pytest.mark.parametrize("typo", [{"grpc": {"replicaCont": 2}}, {"autoscaling": {"enabled": True}},
                                  {"config": {"gameTtlSecond": 60}}, {"config": {"logFormat": "xml"}},
                                  {"rest": {"replicaCount": "two"}}, {"redis": {"url": "http://redis:6379"}}])
def test_values_schema_refuses_typos_and_wrong_types(typo: dict[str, Any], render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmValuesError):
        render(typo)


def test_termination_grace_covers_prestop_and_drain(production_chart: Rendered, render: Callable[..., Rendered]) -> None:
    for component in ("grpc", "rest"):
        pod = production_chart.component("Deployment", component)["spec"]["template"]["spec"]
        assert pod["terminationGracePeriodSeconds"] == 5 + 20 + 10
        assert pod["containers"][0]["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "5"]
        assert _config(production_chart)["TABLETOP_SHUTDOWN_GRACE_SECONDS"] == "20"
    longer = render({"config": {"shutdownGraceSeconds": 45.5}, "shutdown": {"preStopSleepSeconds": 0}})
    pod = longer.component("Deployment", "grpc")["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] == 46 + 10 and "lifecycle" not in pod["containers"][0]


def test_too_short_termination_grace_is_refused(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match="must exceed"):
        render({"shutdown": {"terminationGracePeriodSeconds": 25}})
    ok = render({"shutdown": {"terminationGracePeriodSeconds": 26}})
    assert ok.component("Deployment", "rest")["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 26


def test_production_turns_on_hpa_pdb_networkpolicy_and_servicemonitor(production_chart: Rendered) -> None:
    for component in ("grpc", "rest"):
        hpa = production_chart.component("HorizontalPodAutoscaler", component)
        assert hpa["spec"]["minReplicas"] >= 2 and hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]
        # The HPA owns the replica count: a helm upgrade must not reset it.
        assert "replicas" not in production_chart.component("Deployment", component)["spec"]
        assert production_chart.component("PodDisruptionBudget", component)["spec"]["maxUnavailable"] == 1
        assert production_chart.component("NetworkPolicy", component)["spec"]["policyTypes"] == ["Ingress", "Egress"]
        strategy = production_chart.component("Deployment", component)["spec"]["strategy"]
        assert strategy["rollingUpdate"]["maxUnavailable"] == 0
    assert len(production_chart.kinds("ServiceMonitor")) == 1


def test_network_policies_let_rest_reach_grpc_and_grpc_reach_redis(production_chart: Rendered) -> None:
    grpc_policy = production_chart.component("NetworkPolicy", "grpc")["spec"]
    rest_labels = _pod_labels(production_chart)[f"{RELEASE}-tabletop-rest"]
    grpc_rule = grpc_policy["ingress"][0]
    assert grpc_rule["ports"] == [{"port": "grpc", "protocol": "TCP"}]
    assert any(_matches(peer["podSelector"]["matchLabels"], rest_labels)
               for peer in grpc_rule["from"] if "podSelector" in peer)
    egress_ports = {p["port"] for rule in grpc_policy["egress"] for p in rule["ports"]}
    assert {53, 6379} <= egress_ports
    rest_egress = production_chart.component("NetworkPolicy", "rest")["spec"]["egress"]
    assert any(p["port"] == 50051 for rule in rest_egress for p in rule["ports"])


def test_bundled_redis_accepts_only_grpc_pods(render: Callable[..., Rendered]) -> None:
    rendered = render({"networkPolicy": {"enabled": True}})
    policy = rendered.component("NetworkPolicy", "redis")["spec"]
    peers = policy["ingress"][0]["from"]
    grpc_labels = _pod_labels(rendered)[f"{RELEASE}-tabletop-grpc"]
    rest_labels = _pod_labels(rendered)[f"{RELEASE}-tabletop-rest"]
    assert len(peers) == 1 and _matches(peers[0]["podSelector"]["matchLabels"], grpc_labels)
    assert not _matches(peers[0]["podSelector"]["matchLabels"], rest_labels)
    grpc_egress = rendered.component("NetworkPolicy", "grpc")["spec"]["egress"]
    assert any("podSelector" in peer for rule in grpc_egress for peer in rule.get("to", []))


def test_config_values_become_tabletop_variables(render: Callable[..., Rendered]) -> None:
    rendered = render({"config": {"gameTtlSeconds": 10_000_000, "rateLimitPerToken": 2.5,
                                  "logFormat": "text", "watchBacklog": None}})
    config = _config(rendered)
    # Helm reads numbers as float64; big whole numbers must not print as 1e+07.
    assert config["TABLETOP_GAME_TTL_SECONDS"] == "10000000"
    assert config["TABLETOP_RATE_LIMIT_PER_TOKEN"] == "2.5"
    assert config["TABLETOP_LOG_FORMAT"] == "text"
    assert "TABLETOP_WATCH_BACKLOG" not in config
    for component in ("grpc", "rest"):
        container = _container(rendered, component)
        assert container["envFrom"] == [{"configMapRef": {"name": f"{RELEASE}-tabletop-config"}}]
        assert _env(container)["TABLETOP_METRICS_PORT"] == "9464"


def test_config_change_rolls_the_pods(render: Callable[..., Rendered], default_chart: Rendered) -> None:
    changed = render({"config": {"logLevel": "DEBUG"}})
    for component in ("grpc", "rest"):
        before = default_chart.component("Deployment", component)["spec"]["template"]["metadata"]["annotations"]
        after = changed.component("Deployment", component)["spec"]["template"]["metadata"]["annotations"]
        assert before["checksum/config"] != after["checksum/config"]


def test_metrics_off_sets_port_zero_and_drops_the_metrics_objects(
    production_values: dict[str, Any], render: Callable[..., Rendered],
) -> None:
    rendered = render(deep_merge(production_values, METRICS_OFF))
    for component in ("grpc", "rest"):
        container = _container(rendered, component)
        assert _env(container)["TABLETOP_METRICS_PORT"] == "0"
        assert "metrics" not in {p["name"] for p in container["ports"]}
    assert rendered.kinds("ServiceMonitor") == []
    assert f"{RELEASE}-tabletop-metrics" not in {s["metadata"]["name"] for s in rendered.kinds("Service")}


# Helpers

def _deployments(rendered: Rendered) -> dict[str, Manifest]:
    return {d["metadata"]["name"]: d for d in rendered.kinds("Deployment")}


def _pod_labels(rendered: Rendered) -> dict[str, dict[str, str]]:
    return {name: d["spec"]["template"]["metadata"]["labels"] for name, d in _deployments(rendered).items()}


def _container_port_names(deployment: Manifest) -> set[str]:
    return {p["name"] for c in deployment["spec"]["template"]["spec"]["containers"] for p in c["ports"]}


def _container(rendered: Rendered, component: str) -> Manifest:
    containers = rendered.component("Deployment", component)["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    container: Manifest = containers[0]
    return container


def _env(container: Manifest) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container["env"] if "value" in e}


def _env_sources(container: Manifest) -> dict[str, Any]:
    return {e["name"]: e.get("valueFrom", e.get("value")) for e in container["env"]}


def _config(rendered: Rendered) -> dict[str, str]:
    data: dict[str, str] = rendered.named("ConfigMap", f"{RELEASE}-tabletop-config")["data"]
    return data


def _matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def _seconds(duration: str) -> int:
    units = {"s": 1, "m": 60, "h": 3600}
    return int(duration[:-1]) * units[duration[-1]]
