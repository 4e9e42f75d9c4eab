"""The Helm chart rendered offline, as parsed manifests: shared by the deploy tests.

Rendering uses the Helm v4 Go SDK through helm-python-sdk (a ctypes binding to
libhelm_c, shipped in the wheel): no helm binary, no cluster, no network.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import helm_python
import yaml  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "tabletop"
PRODUCTION_VALUES = ROOT / "deploy" / "helm" / "values-production.yaml"
RELEASE = "tt"
NAMESPACE = "games"

Manifest = dict[str, Any]


@dataclass(frozen=True)
class Rendered:
    """Every object one `helm template` produced, with lookups by kind and component."""

    docs: list[Manifest]

    def kinds(self, kind: str) -> list[Manifest]:
        """All objects of one kind."""
        return [doc for doc in self.docs if doc["kind"] == kind]

    def named(self, kind: str, name: str) -> Manifest:
        """The one object of ``kind`` called ``name``; fails the test when it is missing."""
        found = [doc for doc in self.kinds(kind) if doc["metadata"]["name"] == name]
        assert len(found) == 1, f"expected one {kind} {name}, found {[d['metadata']['name'] for d in self.kinds(kind)]}"
        return found[0]

    def component(self, kind: str, component: str) -> Manifest:
        """The object of ``kind`` for a component (grpc, rest, redis, metrics)."""
        return self.named(kind, f"{RELEASE}-tabletop-{component}")


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Merge values the way Helm merges -f files: maps recursively, everything else replaced."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def render_chart(values: dict[str, Any] | None = None) -> Rendered:
    """Render the chart offline with ``values`` over its defaults; template failures raise."""
    with helm_python.Chart.load(CHART) as chart:
        out = chart.render(values=values or {}, name=RELEASE, namespace=NAMESPACE,
                           is_install=True)
    docs: list[Manifest] = []
    for path, text in sorted(out.items()):
        if not path.endswith((".yaml", ".yml")):
            continue  # NOTES.txt
        docs.extend(doc for doc in yaml.safe_load_all(text) if doc)
    return Rendered(docs)
