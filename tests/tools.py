"""The tools a system test needs, looked up when the test runs, never at collection: a tool installed while
the suite runs (``.ci/run`` installs Chromium, the JDK, Go) counts for every test that starts after it."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

NO_CHROMIUM = ("no Chromium: `apt-get install -y chromium` (Debian; .ci/run installs it) to run the browser "
               "tests, or set TABLETOP_CHROMIUM to a Chromium binary")


def chromium() -> str | None:
    """Debian's Chromium (or ``TABLETOP_CHROMIUM``), as installed now."""
    return next((path for path in (os.environ.get("TABLETOP_CHROMIUM"), shutil.which("chromium"),
                                   "/usr/bin/chromium") if path and Path(path).is_file()), None)


def needs(*tools: str, hint: str, in_ci: bool = False) -> None:
    """Skip the test unless every tool is on PATH now; with ``in_ci``, CI (which installs them) fails instead."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        assert not (in_ci and os.environ.get("CI")), f"CI installs {missing} (.ci/run): {hint}"
        pytest.skip(f"not installed: {missing}: {hint}")


@contextmanager
def exclusive(workspace: Path) -> Iterator[None]:
    """Hold a lock on a folder of the checkout that a test builds in (node_modules, clients/java/build, the
    wheels' build/): pytest-xdist workers, and a second run in the same checkout, take turns there."""
    digest = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"tabletop-tests-{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def npm_installed(folder: Path) -> bool:
    """Whether ``folder``'s node_modules is there and no older than its package-lock.json."""
    installed, lock = folder / "node_modules" / ".package-lock.json", folder / "package-lock.json"
    return installed.is_file() and installed.stat().st_mtime >= lock.stat().st_mtime


def npm_ci(folder: Path, env: dict[str, str] | None = None, timeout: float = 600) -> None:
    """``npm ci`` in ``folder`` unless :func:`npm_installed`. Call it inside ``exclusive(folder)``: it rewrites
    node_modules, which other workers' tests read (clients/typescript, clients/web)."""
    if npm_installed(folder):
        return
    result = subprocess.run([shutil.which("npm") or "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                            cwd=folder, env=dict(os.environ) if env is None else env, capture_output=True, text=True,
                            timeout=timeout, check=False)
    assert result.returncode == 0, f"npm ci in {folder} exited {result.returncode}:\n{result.stdout}{result.stderr}"


def needs_chromium() -> str:
    """The Chromium path, or the test is skipped with the command that installs it."""
    path = chromium()
    if path is None:
        pytest.skip(NO_CHROMIUM)
    return path
