"""GetRuleset's catalog language over REST (issue 31): the ``languageCode`` query parameter, or else the
browser's own ``Accept-Language`` (its most wanted tag by quality), picks the catalog's words; the answer
varies by that header, so a shared cache keeps the languages apart."""

from __future__ import annotations

from tests.rest.rest_api import Api


def names(reply: dict[str, object]) -> dict[str, str]:
    return {c["key"]: c["name"] for c in reply["bang"]["cards"]}  # type: ignore[index]


def test_accept_language_picks_the_catalog_words(api: Api) -> None:
    english = api.get("/v1/rulesets/bang")
    assert english.status_code == 200 and english.json()["languageCode"] == "en"
    assert "Accept-Language" in english.headers["Vary"]
    czech = api.get("/v1/rulesets/bang", headers={"Accept-Language": "de;q=0.5, cs-CZ, en;q=0.8"})
    assert czech.json()["languageCode"] == "cs"
    assert names(czech.json())["missed"] == "Vedle!" and names(english.json())["missed"] == "Missed!"
    assert czech.headers["ETag"] != english.headers["ETag"]
    # The query parameter wins over the header; an unknown or malformed header is English.
    query = api.get("/v1/rulesets/bang?languageCode=en", headers={"Accept-Language": "cs"})
    assert query.json()["languageCode"] == "en"
    for header in ("de, fr;q=0.9", "*", "cs;q=x", "cs;q=0", "!!"):
        assert api.get("/v1/rulesets/bang", headers={"Accept-Language": header}).json()["languageCode"] == "en", header
    assert api.get("/v1/rulesets/bang?languageCode=cs").json()["languageCode"] == "cs"
    bad = api.get("/v1/rulesets/bang?languageCode=cs_CZ")
    assert (bad.status_code, bad.json()["error"]["reason"]) == (400, "INVALID_LANGUAGE_CODE")


def test_the_openapi_document_says_which_routes_honour_accept_language(api: Api) -> None:
    spec = api.get("/openapi.json").json()
    honour = set()
    for path, operations in spec["paths"].items():
        for verb, operation in operations.items():
            headers = {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "header"}
            if "Accept-Language" in headers:
                honour.add((verb.upper(), path))
                assert "`languageCode`" in headers["Accept-Language"]["description"]
                assert "Accept-Language" in operation["responses"]["200"]["headers"]["Vary"]["description"]
    # Exactly the routes whose request has a language field: GetRuleset's catalog words.
    assert honour == {("GET", "/v1/rulesets/{ruleset}")}
