"""Every ``clients/gen/buf.gen.*.yaml`` template generates, with each of its plugins installed here.

The templates are what a Swift, Kotlin, Dart, Go or C# developer runs (clients/README.md). Plugins that only
their own ecosystems ship (protoc-gen-swift, protoc-gen-connect-kotlin, protoc-gen-dart, Grpc.Tools) cannot be
installed from the registries this project reaches; the others (protoc's own java, kotlin and csharp outputs,
Debian's protoc-gen-go and protoc-gen-go-grpc) run from the template itself, pruned to them, and the output is
checked for the names the contract's file options promise. In CI (``CI`` set) they must all be present.
The Go output is also compiled, with Debian's Go packages (GOPATH mode, no module download), into
``clients/gen/go_example``, which plays moves against the running server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from tabletop.v1 import game_service_pb2

from tests.conftest import GrpcServer

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "clients" / "gen").glob("buf.gen.*.yaml"))
BUF = ROOT / ".venv" / "bin" / "buf"
# What .ci/run installs from Debian: these must run there.
DEBIAN = {"go": {"protoc-gen-go", "protoc-gen-go-grpc"}, "kotlin": {"java", "kotlin", "grpc_java_plugin"}, "csharp": {"csharp"}}
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


GOCODE = Path("/usr/share/gocode/src")  # Debian's golang-google-grpc-dev, -genproto-dev, -protobuf-1-5-dev


def test_go_example_plays_against_the_server(grpc_server: GrpcServer, stub: object, tmp_path: Path) -> None:
    ready = BUF.exists() and shutil.which("go") and shutil.which("protoc-gen-go-grpc") and \
        (GOCODE / "google.golang.org" / "grpc").is_dir()
    if not ready:
        assert not os.environ.get("CI"), "CI installs Go and Debian's Go gRPC packages (.ci/run)"
        pytest.skip("needs go, protoc-gen-go(-grpc) and Debian's golang-google-grpc-dev")
    gopath = tmp_path / "gopath"
    subprocess.run([str(BUF), "generate", "--template", str(ROOT / "clients" / "gen" / "buf.gen.go.yaml"),
                    "-o", str(tmp_path / "gen")], cwd=ROOT, check=True, capture_output=True, timeout=180)
    shutil.copytree(tmp_path / "gen" / "clients" / "gen" / "out" / "go", gopath / "src" / "tabletop.dev" / "clients" / "go")
    shutil.copytree(ROOT / "clients" / "gen" / "go_example", gopath / "src" / "tabletop.dev" / "go_example")
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": f"{gopath}:{GOCODE.parent}", "GOFLAGS": "",
           "GOCACHE": str(tmp_path / "gocache")}
    built = subprocess.run(["go", "build", "-o", str(tmp_path / "go_example"), "tabletop.dev/go_example"],
                           env=env, capture_output=True, text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stderr
    played = subprocess.run([str(tmp_path / "go_example"), grpc_server.target], capture_output=True, text=True,
                            timeout=120, check=False)
    assert played.returncode == 0, played.stdout + played.stderr
    fields = [dict(part.split("=", 1) for part in line.split()) for line in played.stdout.splitlines()]
    created = next(f for f in fields if "created" in f)
    assert created["status"] == "GAME_STATUS_ACTIVE"
    acted = [f for f in fields if "acted" in f]
    assert [f["acted"] for f in acted] == ["0", "1"] and all(f["version"] == f["retry_version"] for f in acted)
    assert {"error": "FailedPrecondition", "reason": "NOT_YOUR_TURN"} in fields
    last = int(acted[-1]["version"])
    assert next(f for f in fields if "watched" in f)["watched"].split(",")[-1] == str(last)
    game = stub.GetGame(game_service_pb2.GetGameRequest(name=created["created"]), timeout=10)  # type: ignore[attr-defined]
    assert game.game.version == last  # the retry and the refused move applied nothing


# Helpers

def _installed(plugin: dict[str, object]) -> bool:
    """A local plugin on PATH, or a protoc builtin when protoc is (buf runs protoc for those)."""
    if "protoc_builtin" in plugin:
        return shutil.which("protoc") is not None
    return shutil.which(str(plugin["local"])) is not None
