"""Seat views differ by credential, so every view response says so (``Vary: Authorization``).

Without it a shared cache (a CDN, a corporate proxy, the browser's own cache under ``If-None-Match``)
could serve one seat's view, with its hand and tickets, to another seat or to a spectator.
"""

from __future__ import annotations

from tests.rest.rest_api import Api


def _varies_by_authorization(headers: object) -> bool:
    vary = str(headers.get("Vary", ""))  # type: ignore[attr-defined]
    return "authorization" in {v.strip().lower() for v in vary.split(",")}


def test_seat_and_spectator_views_vary_by_authorization(api: Api) -> None:
    name, tokens = api.create_game(seats=2)
    seat, spectator = api.get(f"/v1/{name}", tokens[0]), api.get(f"/v1/{name}")
    assert seat.status_code == spectator.status_code == 200
    assert seat.json()["view"] != spectator.json()["view"]  # the private part: the cache must tell them apart
    assert _varies_by_authorization(seat.headers) and _varies_by_authorization(spectator.headers)
    etag = seat.headers["ETag"]
    unchanged = api.get(f"/v1/{name}", tokens[0], headers={"If-None-Match": etag})
    assert unchanged.status_code == 304 and _varies_by_authorization(unchanged.headers)
    legal = api.get(f"/v1/{name}:legalActions", tokens[0])
    assert legal.status_code == 200 and _varies_by_authorization(legal.headers)
