"""The OpenAPI document declares proto3's defaults (issue 26): proto3 JSON leaves out every field at its
default (seat 0, false, "", the first enum value, an empty list), and a client generated from the document
fills them in only when the schema says what they are (typescript-fetch gave ``undefined`` for seat 0)."""

from __future__ import annotations

import json

import pytest
from openapi_spec_validator import validate

from tabletop_server.rest.app import OPENAPI_JSON


@pytest.fixture(scope="module")
def schemas() -> dict[str, dict]:
    spec = json.loads(OPENAPI_JSON)
    validate(spec)  # every declared default is valid against its own schema
    return spec["components"]["schemas"]


def test_fields_left_out_at_their_default_declare_it(schemas: dict[str, dict]) -> None:
    credential = schemas["tabletop.v1.SeatCredential"]["properties"]
    assert credential["seat"]["default"] == 0
    game = schemas["tabletop.v1.Game"]["properties"]
    assert game["status"]["default"] == "GAME_STATUS_UNSPECIFIED"
    assert game["version"]["default"] == "0"  # int64: a string
    assert game["seats"]["default"] == []
    assert game["public"]["default"] is False


def test_fields_with_presence_or_required_declare_none(schemas: dict[str, dict]) -> None:
    create = schemas["tabletop.v1.CreateGameRequest"]["properties"]
    assert "default" not in create["seed"]  # proto3 optional: absent is unset, not 0
    assert "default" not in create["seatCount"]  # REQUIRED
    assert "default" not in create["options"]  # a message
