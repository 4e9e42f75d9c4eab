"""The reference web client at ``/`` and the API explorer at ``/docs``, served from ``rest/web/``.

``rest/web/`` is the committed build of ``clients/web`` (``npm run build`` there; ``.ci/run``
rebuilds it and fails on a diff), shipped as package data, so ``tabletop serve`` serves the
page with no Node.js and no extra command. Only paths outside the contract's are used (``/``,
``/assets/``, ``/docs``), so no API route is shadowed; a test checks that against ``ROUTES``.

Caching follows the file names: the bundle's names carry a hash of their content
(``assets/app-<hash>.js``), so they are cached for a year as immutable; the two pages are
revalidated on every load (``no-cache`` with an ETag, a 304 when unchanged), so a release
reaches every browser at once; the Swagger UI files keep their names across versions and are
cached for a day. The pages get a Content-Security-Policy of their own origin only: the
client and the explorer load nothing from any other host.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask, Response, send_from_directory
from werkzeug.exceptions import NotFound

WEB = Path(__file__).resolve().parent / "web"
PREFIXES = ("/assets/", "/docs")  # with "/": the paths this module serves (tests/web checks them against ROUTES)
YEAR, DAY = 365 * 24 * 3600, 24 * 3600
# Inline style attributes (the map's colours, Swagger UI's own) need 'unsafe-inline' for styles only.
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def add_web_routes(app: Flask, root: Path = WEB) -> None:
    """Serve the built client and explorer of ``root`` from ``app`` (404s until it is built)."""

    @app.get("/")
    def web_client() -> Response:
        return _page(root, "index.html")

    @app.get("/assets/<path:name>")
    def web_asset(name: str) -> Response:
        return _file(root / "assets", name, f"public, max-age={YEAR}, immutable")

    @app.get("/docs")
    @app.get("/docs/")
    def api_explorer() -> Response:
        return _page(root / "docs", "index.html")

    @app.get("/docs/<path:name>")
    def api_explorer_file(name: str) -> Response:
        return _file(root / "docs", name, f"public, max-age={DAY}")


# Helpers


def _page(directory: Path, name: str) -> Response:
    response = _file(directory, name, "no-cache")
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _file(directory: Path, name: str, cache_control: str) -> Response:
    if not directory.is_dir():
        raise NotFound("the web client is not built: run `npm ci && npm run build` in clients/web")
    response = send_from_directory(directory, name, max_age=None, conditional=True, etag=True)
    response.headers["Cache-Control"] = cache_control
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers.pop("Expires", None)
    return response
