"""The wheels as a user gets them: built, installed in a clean virtual environment, serving.

``pip wheel`` builds ``tabletop-client`` (clients/python) and ``tabletop-server`` (the root project);
a fresh venv installs the server wheel alone, with the client found only through ``--find-links``,
so a missing dependency declaration fails here (as it did with ``No module named 'tabletop'``).
From a directory outside the checkout, ``tabletop serve`` then starts with its embedded Redis and
answers over gRPC and REST. Dependencies come from the package index (or pip's cache).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2, game_service_pb2_grpc

from bench.http_load import free_port  # below the ephemeral range
from tests.deploy.chartkit import ROOT
from tests.tools import exclusive

LICENSE = (ROOT / "LICENSE").read_text()


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("wheels")
    with exclusive(ROOT):  # setuptools builds in the checkout (build/, *.egg-info): one build at a time
        _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), "./clients/python", "."],
             cwd=ROOT, timeout=600)
    found = {path.name.split("-")[0]: path for path in out.glob("*.whl")}
    assert sorted(found) == ["tabletop_client", "tabletop_server"], sorted(found)
    return found


@pytest.fixture(scope="module")
def venv(wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("clean")
    _run([sys.executable, "-m", "venv", str(home / "venv")], cwd=home, timeout=120)
    pip = [str(home / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run([*pip, "--find-links", str(wheels["tabletop_client"].parent), str(wheels["tabletop_server"])],
         cwd=home, timeout=900)
    return home / "venv"


def test_wheels_carry_their_names_license_and_data(wheels: dict[str, Path]) -> None:
    server = _metadata(wheels["tabletop_server"])
    assert (server["Name"], server["License-Expression"]) == ("tabletop-server", "Apache-2.0")
    assert "tabletop-client==0.1.0" in server.get_all("Requires-Dist", [])
    client = _metadata(wheels["tabletop_client"])
    assert (client["Name"], client["License-Expression"]) == ("tabletop-client", "Apache-2.0")
    for wheel in wheels.values():
        with zipfile.ZipFile(wheel) as archive:
            licenses = [n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
            assert len(licenses) == 1 and archive.read(licenses[0]).decode() == LICENSE, wheel.name
    with zipfile.ZipFile(wheels["tabletop_server"]) as archive:
        names = set(archive.namelist())
    assert {"tabletop_server/service/store/cas.lua", "tabletop_server/rest/descriptors.binpb",
            "tabletop_server/service/games/bang/data/cards.json", "tabletop_server/rest/web/index.html"} <= names
    # Nothing bare at the top of site-packages: the stubs are the client's, and service/rest live under
    # tabletop_server/ (as files, not as the links of the checkout).
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"tabletop_server"}, tops


def test_every_package_ships_the_apache_license() -> None:
    assert LICENSE.lstrip().startswith("Apache License") and "Version 2.0, January 2004" in LICENSE
    for package in ("clients/python", "clients/typescript", "clients/java"):
        assert (ROOT / package / "LICENSE").read_text() == LICENSE, package
    npm = json.loads((ROOT / "clients" / "typescript" / "package.json").read_text())
    assert npm["license"] == "Apache-2.0" and not npm.get("private") and "LICENSE" in npm["files"]
    lock = json.loads((ROOT / "clients" / "typescript" / "package-lock.json").read_text())
    assert lock["packages"][""]["license"] == "Apache-2.0"


def test_clean_install_reports_its_version(venv: Path) -> None:
    result = _run([str(venv / "bin" / "tabletop"), "--version"], cwd=venv, timeout=60)
    assert result.stdout.strip() == "tabletop 0.1.0"
    python = str(venv / "bin" / "python")
    where = _run([python, "-c", "import tabletop_server.service.cli as c, tabletop.v1; print(c.__file__)"],
                 cwd=venv, timeout=60).stdout
    assert where.startswith(str(venv)), where  # from the wheel, not from the checkout
    for bare in ("service", "rest"):  # the names other projects use are left to them
        found = _run([python, "-c", f"import importlib.util; print(importlib.util.find_spec({bare!r}))"],
                     cwd=venv, timeout=60).stdout
        assert found.strip() == "None", (bare, found)


def test_clean_install_serves_with_embedded_redis(venv: Path, tmp_path: Path) -> None:
    grpc_port, http_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TABLETOP_", "PYTHON"))}
    env.update(TABLETOP_DATA_DIR=str(tmp_path / "data"), TABLETOP_METRICS_PORT="0", TABLETOP_LOG_FORMAT="text")
    log = tmp_path / "serve.log"
    with log.open("wb") as sink, _process([str(venv / "bin" / "tabletop"), "serve", "--grpc-port", str(grpc_port),
                                           "--http-port", str(http_port)], env, tmp_path, sink):
        rulesets = _until_answered(lambda: _list_rulesets(grpc_port), log)
        assert {r.id for r in rulesets.rulesets} == {"ttr-europe", "bang"}
        rest = _until_answered(lambda: _get_json(f"http://127.0.0.1:{http_port}/v1/rulesets"), log)
        assert {r["id"] for r in rest["rulesets"]} == {"ttr-europe", "bang"}
    assert "embedded Redis" in log.read_text()


# Helpers

def _run(command: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    assert result.returncode == 0, f"{command}: {result.stdout}\n{result.stderr}"
    return result


def _metadata(wheel: Path) -> Any:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(archive.read(name).decode())


class _process:
    """A started process, ended with SIGTERM (and killed if it does not end) on leaving."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path, sink: Any) -> None:
        self.popen = subprocess.Popen(command, env=env, cwd=cwd, stdout=sink, stderr=subprocess.STDOUT)

    def __enter__(self) -> subprocess.Popen[bytes]:
        return self.popen

    def __exit__(self, *_: object) -> None:
        self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(30)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(10)


def _list_rulesets(port: int) -> game_service_pb2.ListRulesetsResponse:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        return stub.ListRulesets(game_service_pb2.ListRulesetsRequest(), timeout=5)


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def _until_answered(call: Any, log: Path, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except (grpc.RpcError, OSError):
            if time.monotonic() > deadline:
                raise AssertionError(f"tabletop serve did not answer:\n{log.read_text(errors='replace')}") from None
            time.sleep(0.5)


