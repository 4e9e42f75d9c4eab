"""The web client and the API explorer over real HTTP (rest/static.py): served at /, /assets/ and /docs with
their content types, caching and security headers, loading nothing from another host, and shadowing no
route of the contract."""

from __future__ import annotations

import re

from tabletop_server.rest.routes import ROUTES
from tabletop_server.rest.static import PREFIXES
from tests.rest.rest_api import Api


def test_the_page_and_its_bundle(api: Api) -> None:
    page = api.get("/")
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert page.headers["Cache-Control"] == "no-cache" and "default-src 'self'" in page.headers["Content-Security-Policy"]
    assets = re.findall(r'(?:src|href)="(/assets/[^"]+)"', page.text)
    assert assets, page.text
    for path in assets:
        got = api.get(path)
        assert got.status_code == 200 and "immutable" in got.headers["Cache-Control"], path
        assert got.headers["X-Content-Type-Options"] == "nosniff"
    again = api.get("/", headers={"If-None-Match": page.headers["ETag"]})
    assert again.status_code == 304


def test_the_explorer_is_shipped_and_reads_the_local_openapi_document(api: Api) -> None:
    page = api.get("/docs")
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    linked = [link for link in re.findall(r'(?:src|href)="([^"]+)"', page.text) if not link.startswith("data:")]
    assert linked and all(link.startswith("/docs/") for link in linked), linked  # nothing from another host
    for path in linked:
        assert api.get(path).status_code == 200, path
    assert "/openapi.json" in api.get("/docs/init.js").text
    assert api.get("/openapi.json").status_code == 200
    assert api.get("/docs/no-such-file.js").status_code == 404


def test_no_route_of_the_contract_is_shadowed(api: Api) -> None:
    for route in ROUTES:
        assert route.rule != "/" and not any(route.rule.startswith(p) for p in PREFIXES), route.rule
    assert api.get("/v1/rulesets").headers["Content-Type"].startswith("application/json")
