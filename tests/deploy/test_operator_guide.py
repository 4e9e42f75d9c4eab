"""deploy/README.md stays complete: every chart value and every TABLETOP_* setting is in its tables.

The values table may document a map as one row (``redis.bundled.resources``) and writes
``<component>.x`` once for the identical ``grpc.x`` and ``rest.x`` rows. The settings come
from ``service.config.Config``, the single source of the service's variable names.
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from typing import Any

import yaml  # type: ignore[import-untyped]

from tabletop_server.service.config import Config
from tests.deploy.chartkit import CHART, ROOT, render_chart

GUIDE = ROOT / "deploy" / "README.md"
# Settings the chart sets outside the `config:` map (or, for the data dir, never needs).
OUTSIDE_CONFIG = {"redis_url", "data_dir", "host", "grpc_port", "http_port", "grpc_target", "metrics_port",
                  "api_keys"}


def test_every_chart_value_is_documented() -> None:
    documented = set(_table_column(_section("### Values"), 0))
    expanded = {row.replace("<component>", c) for row in documented for c in ("grpc", "rest")}
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    missing = [path for path in _leaves(values)
               if not any(path == row or path.startswith(row + ".") for row in expanded)]
    assert missing == []
    stale = [row for row in expanded if not _exists(values, row) and not row.endswith(".*")]
    assert stale == []


def test_every_tabletop_setting_is_in_the_variable_table() -> None:
    table = set(_table_column(_section("### Environment variables"), 0))
    settings = {f"TABLETOP_{f.name.upper()}" for f in fields(Config)}
    assert settings - table == set(), "add these to deploy/README.md"
    assert {v for v in table if v.startswith("TABLETOP_")} - settings == set(), "no such setting"


def test_every_setting_can_be_set_through_the_chart() -> None:
    config_keys = set(yaml.safe_load((CHART / "values.yaml").read_text())["config"])
    schema_keys = set(json.loads((CHART / "values.schema.json").read_text())["properties"]["config"]["properties"])
    expected_keys = {re.sub(r"_(\w)", lambda m: m.group(1).upper(), f.name)
                     for f in fields(Config) if f.name not in OUTSIDE_CONFIG}
    # values.yaml and the schema (which refuses unknown config keys) both know every setting.
    assert config_keys == expected_keys, "values.yaml config: must list every setting of service/config.py"
    assert schema_keys == expected_keys, "values.schema.json config must list every setting"
    # The settings outside config: are set on the containers directly.
    rendered = render_chart({"auth": {"apiKeys": ["k"]}})
    names = {e["name"] for d in rendered.kinds("Deployment") for c in d["spec"]["template"]["spec"]["containers"]
             for e in c.get("env", [])}
    expected = {f"TABLETOP_{n.upper()}" for n in OUTSIDE_CONFIG - {"data_dir"}}
    assert expected <= names


def test_production_values_only_use_documented_keys() -> None:
    documented = {row.replace("<component>", c) for row in _table_column(_section("### Values"), 0)
                  for c in ("grpc", "rest")}
    production = yaml.safe_load((ROOT / "deploy" / "helm" / "values-production.yaml").read_text())
    undocumented = [path for path in _leaves(production)
                    if not any(path == row or path.startswith(row + ".") for row in documented)]
    assert undocumented == []


# Helpers

def _section(heading: str) -> str:
    text = GUIDE.read_text()
    start = text.index(heading + "\n")
    end = text.find("\n#", start + len(heading))
    return text[start:end if end > 0 else None]


def _table_column(section: str, column: int) -> list[str]:
    cells = []
    for line in section.splitlines():
        if line.startswith("| `"):
            cell = line.split("|")[column + 1].strip()
            cells.append(cell.strip("`"))
    return cells


def _leaves(values: dict[str, Any], prefix: str = "") -> list[str]:
    paths = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            paths.extend(_leaves(value, path + "."))
        else:
            paths.append(path)
    return paths


def _exists(values: dict[str, Any], path: str) -> bool:
    node: Any = values
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
