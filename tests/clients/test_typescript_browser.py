"""The TypeScript client's browser entry, bundled and played in a real Chromium against the real server.

``clients/typescript/e2e/browser-scenario.ts`` (through ``src/browser.ts`` only) is bundled by
the package's esbuild for the browser platform, so a Node-only import would fail the build.
The page is served from its own origin and the server allows that origin by CORS, so the
browser sends real preflights. The scenario runs over Connect (JSON) and gRPC-Web: create,
join, legal actions, a live WatchGame stream that receives the action's event, the action,
a refused action with its reason, the log. Chromium is Debian's (``apt-get install chromium``;
.ci/run installs it), driven by Playwright; Playwright's own browser downloads are not used.
Skips only when Node.js/npm or Chromium is missing.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from tabletop.v1 import game_service_pb2, game_service_pb2_grpc

from tabletop_server.rest.app import create_app, serve
from tests.clients.npm_package import MISSING, PACKAGE, install_if_needed, run
from tests.tools import exclusive, needs, needs_chromium


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    needs("node", "npm", hint=MISSING)
    needs_chromium()
PAGE = b"<!doctype html><meta charset=utf-8><title>tabletop</title><script src=scenario.js></script>"


@pytest.fixture(scope="module")
def page_origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The bundled scenario and its page, served over HTTP from an origin of their own."""
    root = tmp_path_factory.mktemp("page")
    env = {**os.environ, "NO_COLOR": "1"}
    with exclusive(PACKAGE):  # npm ci writes node_modules, which the TypeScript test uses too
        install_if_needed(env)
        run([str(PACKAGE / "node_modules" / ".bin" / "esbuild"), "e2e/browser-scenario.ts", "--bundle",
             "--format=iife", "--global-name=TabletopScenario", "--platform=browser", "--target=es2022",
             f"--outfile={root / 'scenario.js'}"], env, timeout=120)
    (root / "index.html").write_bytes(PAGE)
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def api_url(grpc_server: Any, page_origin: str) -> Iterator[str]:
    """The HTTP port (REST, Connect, gRPC-Web) with the page's origin allowed by CORS."""
    server = serve(create_app(grpc_server.target, cors_origins=[page_origin]), "127.0.0.1", 0)
    yield server.url
    server.close()


@pytest.mark.parametrize("protocol", ["connect", "grpc-web"])
def test_browser_client_plays_over_connect(protocol: str, page_origin: str, api_url: str,
                                           stub: game_service_pb2_grpc.GameServiceStub) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=needs_chromium())
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{page_origin}/index.html")
            result = page.evaluate("([url, protocol]) => TabletopScenario.play(url, protocol)", [api_url, protocol])
        finally:
            browser.close()
    assert not errors, errors
    acted = int(result["actedVersion"])
    assert result["watchedVersion"] == str(acted) and result["watchedEvents"] > 0, result  # the live event
    assert result["logVersion"] == str(acted), result
    assert (result["refusedCode"], result["refusedReason"]) == ("FailedPrecondition", "STALE_VERSION"), result
    # The server agrees: the game moved on by exactly the one action.
    game = stub.GetGame(game_service_pb2.GetGameRequest(name=result["name"])).game
    assert game.version == acted


def test_preflight_allows_the_connect_headers(page_origin: str, api_url: str) -> None:
    import requests

    reply = requests.options(f"{api_url}/tabletop.v1.GameService/SubmitAction", timeout=10, headers={
        "Origin": page_origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type,connect-protocol-version,connect-timeout-ms"})
    assert reply.status_code == 204, reply.text
    assert reply.headers["Access-Control-Allow-Origin"] == page_origin
    allowed = reply.headers["Access-Control-Allow-Headers"]
    for header in ("connect-protocol-version", "connect-timeout-ms", "grpc-timeout", "x-grpc-web", "x-user-agent"):
        assert header in allowed


# Helpers

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


