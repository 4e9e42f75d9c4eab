"""The Kotlin (Android) template generates with Debian's tools alone, and its output compiles and plays (issue 26).

``clients/gen/buf.gen.kotlin.yaml`` used to stop on ``protoc-gen-connect-kotlin``, which no registry reachable
here ships, and the Android instructions named placeholder versions. The template now runs protoc's own ``java``
and ``kotlin`` outputs (lite) and Debian's grpc-java plugin (lite); the versions the docs pin are the ones these
tools are (protoc 3.21.12, grpc-java 1.41.3). What runs here:

- the template generates, every plugin present (none pruned), with the lite marshaller in the stubs;
- javac compiles the generated Java (messages and stubs) against Debian's protobuf 3.21.12 and grpc-java 1.41.3 jars;
- kotlinc (Debian's ``kotlin`` 1.3.31, when installed) compiles ``clients/gen/kotlin_example``, which plays the
  opening of a game against the running server through the generated stubs.

Not run here: the generated Kotlin DSL files (``*Kt.kt``) need the ``protobuf-kotlin-lite`` runtime jar, which
Debian does not package and no Maven registry is reachable to fetch; nor Gradle or an Android build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import GrpcServer
from tests.tools import needs

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "clients" / "gen" / "buf.gen.kotlin.yaml"
BUF = ROOT / ".venv" / "bin" / "buf"
JARS = Path(os.environ.get("TABLETOP_JAVA_JARS", "/usr/share/java"))
COMPILE = ("protobuf", "grpc-api", "grpc-context", "grpc-stub", "grpc-protobuf-lite", "guava", "jsr305",
           "geronimo-annotation-1.3-spec", "error_prone_annotations")
RUN = ("grpc-core", "grpc-netty", "perfmark-api", "netty-buffer", "netty-codec", "netty-codec-http",
       "netty-codec-http2", "netty-common", "netty-handler", "netty-resolver", "netty-transport",
       "netty-codec-socks", "netty-handler-proxy", "kotlin-stdlib")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    needs("protoc", "grpc_java_plugin", hint="Debian's protobuf-compiler and protobuf-compiler-grpc-java-plugin",
          in_ci=True)
    if not BUF.exists():
        pytest.skip("buf is installed by the test extras (.venv/bin/buf)")
    out = tmp_path_factory.mktemp("kotlin")
    result = subprocess.run([str(BUF), "generate", "--template", str(TEMPLATE), "-o", str(out)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return out / "clients" / "gen" / "out" / "kotlin"


@pytest.fixture(scope="module")
def classes(generated: Path) -> Path:
    needs("javac", hint="Debian's default-jdk-headless", in_ci=True)
    classes = generated.parent / "classes"
    sources = [str(p) for p in generated.rglob("*.java")]
    result = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "--release", "11", "-d", str(classes),
                             "-cp", _classpath(COMPILE), *sources], capture_output=True, text=True, timeout=900,
                            check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    return classes


def test_the_template_uses_only_plugins_installed_here() -> None:
    plugins = yaml.safe_load(TEMPLATE.read_text())["plugins"]
    assert [p.get("protoc_builtin") or p.get("local") for p in plugins] == ["java", "kotlin", "grpc_java_plugin"]
    assert all(p["opt"] == ["lite"] for p in plugins)  # Android: protobuf-lite messages and lite stubs


def test_the_template_generates_lite_messages_kotlin_dsl_and_stubs(generated: Path) -> None:
    package = generated / "dev" / "tabletop" / "v1"
    stubs = (package / "GameServiceGrpc.java").read_text()
    assert "io.grpc.protobuf.lite.ProtoLiteUtils.marshaller" in stubs and "ProtoUtils.marshaller" not in stubs
    assert "extends\n    com.google.protobuf.GeneratedMessageLite<" in (package / "Game.java").read_text()
    assert "package dev.tabletop.v1;" in (package / "GameKt.kt").read_text().splitlines()


def test_the_generated_java_compiles_against_the_pinned_runtime(classes: Path) -> None:
    assert (classes / "dev" / "tabletop" / "v1" / "GameServiceGrpc$GameServiceBlockingStub.class").is_file()
    assert (classes / "dev" / "tabletop" / "v1" / "WatchGameResponse.class").is_file()


def test_the_pinned_versions_are_the_tools_versions() -> None:
    """The coordinates the docs give are the versions that generated and compiled the code here."""
    protoc = subprocess.run(["protoc", "--version"], capture_output=True, text=True, check=True).stdout.split()[-1]
    readme = (ROOT / "clients" / "java" / "README.md").read_text()
    assert f'val protobuf = "{protoc}"' in readme and f"com.google.protobuf:protoc:{protoc}" in readme
    assert "com.google.protobuf:protobuf-kotlin-lite:$protobuf" in readme
    grpc = next(JARS.glob("grpc-api-*.jar"), None)
    if grpc is not None:
        version = grpc.stem.removeprefix("grpc-api-")
        assert f'val grpc = "{version}"' in readme and f"io.grpc:protoc-gen-grpc-java:{version}" in readme
    assert "<2.x>" not in readme and "<its protobuf version>" not in readme


def test_kotlin_example_plays_against_the_server(classes: Path, grpc_server: GrpcServer) -> None:
    if shutil.which("kotlinc") is None:
        assert not os.environ.get("CI"), "CI installs Debian's kotlin (.ci/run)"
        pytest.skip("not installed: kotlinc (apt-get install kotlin)")
    built = classes.parent / "kotlin-example"
    classpath = f"{classes}:{_classpath(COMPILE + RUN)}"
    result = subprocess.run(["kotlinc", str(ROOT / "clients" / "gen" / "kotlin_example" / "PlayExample.kt"),
                             "-cp", classpath, "-d", str(built)], capture_output=True, text=True, timeout=900,
                            check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    played = subprocess.run(["java", "-cp", f"{built}:{classpath}", "dev.tabletop.example.PlayExampleKt",
                             grpc_server.target], capture_output=True, text=True, timeout=120, check=False)
    assert played.returncode == 0, played.stdout + played.stderr[-4000:]
    fields = [dict(part.split("=", 1) for part in line.split()) for line in played.stdout.splitlines()]
    assert next(f for f in fields if "created" in f)["status"] == "GAME_STATUS_ACTIVE"
    acted = [f for f in fields if "acted" in f]
    assert [f["acted"] for f in acted] == ["0", "1"] and all(f["version"] == f["retry_version"] for f in acted)
    watched = next(f for f in fields if "watched" in f)["watched"].split(",")
    assert watched[0] == "1" and watched[-1] == acted[-1]["version"]


# Helpers

def _classpath(names: tuple[str, ...]) -> str:
    missing = [name for name in names if not (JARS / f"{name}.jar").is_file()]
    if missing:
        assert not os.environ.get("CI"), f"CI installs Debian's Java packages (.ci/run): missing {missing}"
        pytest.skip(f"Debian jars missing: {missing}")
    return ":".join(str(JARS / f"{name}.jar") for name in names)
