"""The reference web client (clients/web, built into rest/web) in Debian's Chromium, against the real server.

One HTTP server per module serves the page, REST and Connect on one origin, exactly as ``tabletop serve``
does. Chromium is launched by path (Playwright's own browser downloads are never used); without it
every browser test is skipped with the command that installs it. Each seat is its own browser context,
so sessionStorage (where the page keeps a seat's token) is separate, as in separate browsers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tabletop_server.rest.app import create_app, serve
from tests.tools import needs_chromium


@pytest.fixture(scope="module")
def web_url(grpc_server: Any) -> Iterator[str]:
    """The HTTP port with the web client at / (as `tabletop serve` mounts it)."""
    server = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    yield server.url
    server.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = needs_chromium()  # looked up now: installed during the run counts
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path)
        yield launched
        launched.close()
