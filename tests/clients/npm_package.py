"""The TypeScript package (clients/typescript) driven through npm, as a developer would (shared by its tests)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.tools import npm_ci

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"
NODE = shutil.which("node")
NPM = shutil.which("npm")
MISSING = "node/npm not installed: the TypeScript client tests need Node.js >= 20 and npm"


def install_if_needed(env: dict[str, str]) -> None:
    """``npm ci`` when node_modules is missing or older than package-lock.json (under ``exclusive(PACKAGE)``)."""
    npm_ci(PACKAGE, env, timeout=300)


def npm(args: list[str], env: dict[str, str], timeout: float) -> str:
    """Run ``npm args`` in the package; its output (it must exit 0)."""
    return run([NPM or "npm", *args], env, timeout)


def run(command: list[str], env: dict[str, str], timeout: float) -> str:
    """Run ``command`` in the package; its output (it must exit 0)."""
    result = subprocess.run(command, cwd=PACKAGE, env=env, capture_output=True, text=True,
                            timeout=timeout, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{' '.join(command)} exited {result.returncode}:\n{output}"
    return output
