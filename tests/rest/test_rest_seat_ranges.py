"""ListRulesets' seat ranges and CreateGame's refusal of a seat count that needs an option, over REST
(the JSON is derived from the protos: lowerCamelCase names, enums as their value names)."""

from __future__ import annotations

from tests.rest.rest_api import Api


def test_rulesets_list_seat_ranges_with_the_options_they_need(api: Api) -> None:
    reply = api.get("/v1/rulesets")
    assert reply.status_code == 200, reply.text
    bang = next(r for r in reply.json()["rulesets"] if r["id"] == "bang")
    assert (bang["minSeats"], bang["maxSeats"]) == (3, 8)
    need = [{"option": "expansions", "value": "BANG_EXPANSION_DODGE_CITY"}]
    assert bang["seatRanges"] == [{"minSeats": 3, "maxSeats": 3, "requiredOptions": need},
                                  {"minSeats": 4, "maxSeats": 7},
                                  {"minSeats": 8, "maxSeats": 8, "requiredOptions": need}]
    ttr = next(r for r in reply.json()["rulesets"] if r["id"] == "ttr-europe")
    assert ttr["seatRanges"] == [{"minSeats": 2, "maxSeats": 5}]


def test_create_game_refuses_eight_seats_without_dodge_city(api: Api) -> None:
    reply = api.post("/v1/games", json={"ruleset": "bang", "seatCount": 8})
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert (error["status"], error["reason"]) == ("INVALID_ARGUMENT", "SEAT_COUNT_NEEDS_EXPANSION")
    assert "BANG_EXPANSION_DODGE_CITY" in error["message"]
    info = next(d for d in error["details"] if d["@type"].endswith("google.rpc.ErrorInfo"))
    assert info["metadata"] == {"expansion": "BANG_EXPANSION_DODGE_CITY"}


def test_create_game_refuses_a_house_rule_without_dodge_city(api: Api) -> None:
    body = {"ruleset": "bang", "seatCount": 4, "options": {"bang": {"seanMalloryUnlimited": True}}}
    reply = api.post("/v1/games", json=body)
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"]["reason"] == "OPTION_NEEDS_EXPANSION"
