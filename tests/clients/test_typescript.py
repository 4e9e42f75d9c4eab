"""The TypeScript client (clients/typescript) built and played against the real gRPC server.

Runs the package's own scripts, as a developer would: ``npm ci`` when its dependencies
are not installed (or the lockfile changed since), ``npm run build`` (tsc, strict) and
``npm test`` (node --test on the compiled JS) with ``TABLETOP_GRPC_TARGET`` pointing at
the session's server. Skips only when Node.js or npm is absent.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"
NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(
    NODE is None or NPM is None,
    reason="node/npm not installed: the TypeScript client test needs Node.js >= 20 and npm",
)


def test_typescript_client_plays_against_server(grpc_server) -> None:  # type: ignore[no-untyped-def]
    env = {**os.environ, "TABLETOP_GRPC_TARGET": grpc_server.target, "NO_COLOR": "1"}
    if _needs_install():
        _npm(["ci", "--no-audit", "--no-fund"], env, timeout=300)
    _npm(["run", "build"], env, timeout=180)
    output = _npm(["test"], env, timeout=180)
    # The node test runner's summary: every test ran, none failed or was skipped.
    assert "# fail 0" in output or "ℹ fail 0" in output, output
    assert "skipped 0" in output, output
    ran = re.search(r"(?:#|ℹ) tests (\d+)", output)
    assert ran is not None and int(ran.group(1)) >= 10, output


# Helpers

def _needs_install() -> bool:
    """True when node_modules is missing or older than package-lock.json."""
    installed = PACKAGE / "node_modules" / ".package-lock.json"
    lock = PACKAGE / "package-lock.json"
    return not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime


def _npm(args: list[str], env: dict[str, str], timeout: float) -> str:
    assert NPM is not None
    result = subprocess.run([NPM, *args], cwd=PACKAGE, env=env, capture_output=True, text=True,
                            timeout=timeout, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"npm {' '.join(args)} exited {result.returncode}:\n{output}"
    return output
