"""Every ``clients/gen/buf.gen.*.yaml`` template generates, with each of its plugins installed here.

The templates are what a Swift, Kotlin, Dart, Go or C# developer runs (clients/README.md). Plugins that only
their own ecosystems ship (protoc-gen-swift, protoc-gen-connect-kotlin, protoc-gen-dart, Grpc.Tools) cannot be
installed from the registries this project reaches; the others (protoc's own java, kotlin and csharp outputs,
Debian's protoc-gen-go and protoc-gen-go-grpc) run from the template itself, pruned to them, and the output is
checked for the names the contract's file options promise. In CI (``CI`` set) they must all be present.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "clients" / "gen").glob("buf.gen.*.yaml"))
BUF = ROOT / ".venv" / "bin" / "buf"
# What .ci/run installs from Debian: these must run there.
DEBIAN = {"go": {"protoc-gen-go", "protoc-gen-go-grpc"}, "kotlin": {"java", "kotlin"}, "csharp": {"csharp"}}
# A file each target's output must hold, and a line in it that the file options decide.
EXPECTED = {
    "go": {"tabletop/v1/game_service_grpc.pb.go": "package tabletopv1",
           "tabletop/v1/game.pb.go": "package tabletopv1"},
    "kotlin": {"dev/tabletop/v1/TtrEuropeView.java": "package dev.tabletop.v1;",
               "dev/tabletop/v1/GameKt.kt": "package dev.tabletop.v1;"},
    "csharp": {"Game.g.cs": "namespace Tabletop.V1 {"},
}


def test_a_template_per_target() -> None:
    assert sorted(t.name.split(".")[2] for t in TEMPLATES) == ["csharp", "dart", "go", "kotlin", "swift"]
    for template in TEMPLATES:
        config = yaml.safe_load(template.read_text())
        assert config["version"] == "v2" and config["inputs"] == [{"directory": ".", "paths": ["protos/tabletop/v1"]}]
        target = template.name.split(".")[2]
        assert all(p["out"].startswith(f"clients/gen/out/{target}") for p in config["plugins"]), template.name


@pytest.mark.skipif(not BUF.exists(), reason="buf is installed by the test extras (.venv/bin/buf)")
@pytest.mark.parametrize("target", sorted(EXPECTED))
def test_installed_plugins_generate_namespaced_code(target: str, tmp_path: Path) -> None:
    config = yaml.safe_load((ROOT / "clients" / "gen" / f"buf.gen.{target}.yaml").read_text())
    runnable = [p for p in config["plugins"] if _installed(p)]
    names = {p.get("local") or p.get("protoc_builtin") for p in runnable}
    if os.environ.get("CI"):
        assert DEBIAN[target] <= names, f"{target}: Debian's plugins missing: {DEBIAN[target] - names}"
    if not names & DEBIAN[target]:
        pytest.skip(f"{target}: none of {sorted(DEBIAN[target])} installed (see .ci/run)")
    pruned = tmp_path / "buf.gen.yaml"
    pruned.write_text(yaml.safe_dump({**config, "plugins": runnable}))
    result = subprocess.run([str(BUF), "generate", "--template", str(pruned), "-o", str(tmp_path / "o")],
                            cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "o" / "clients" / "gen" / "out" / target
    for relative, line in EXPECTED[target].items():
        if target == "kotlin" and relative.endswith(".kt") and "kotlin" not in names:
            continue
        assert line in (out / relative).read_text().splitlines(), relative


# Helpers

def _installed(plugin: dict[str, object]) -> bool:
    """A local plugin on PATH, or a protoc builtin when protoc is (buf runs protoc for those)."""
    if "protoc_builtin" in plugin:
        return shutil.which("protoc") is not None
    return shutil.which(str(plugin["local"])) is not None
