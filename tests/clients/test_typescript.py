"""The TypeScript client (clients/typescript) built and played against the real gRPC server.

Runs the package's own scripts, as a developer would: ``npm ci`` when its dependencies
are not installed (or the lockfile changed since), ``npm run build`` (tsc, strict) and
``npm test`` (node --test on the compiled JS) with ``TABLETOP_GRPC_TARGET`` pointing at
the session's server. Skips only when Node.js or npm is absent.
"""

from __future__ import annotations

import os
import re

import pytest

from tests.clients.npm_package import MISSING, PACKAGE, install_if_needed, npm
from tests.tools import exclusive, needs


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    needs("node", "npm", hint=MISSING)


def test_typescript_client_plays_against_server(grpc_server) -> None:  # type: ignore[no-untyped-def]
    env = {**os.environ, "TABLETOP_GRPC_TARGET": grpc_server.target, "NO_COLOR": "1"}
    with exclusive(PACKAGE):  # npm ci and the build write in the checkout; the browser test reads it
        install_if_needed(env)
        npm(["run", "build"], env, timeout=180)
        output = npm(["test"], env, timeout=180)
    # The node test runner's summary: every test ran, none failed or was skipped.
    assert "# fail 0" in output or "ℹ fail 0" in output, output
    assert "skipped 0" in output, output
    ran = re.search(r"(?:#|ℹ) tests (\d+)", output)
    assert ran is not None and int(ran.group(1)) >= 10, output
