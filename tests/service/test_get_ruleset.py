"""GetRuleset over gRPC: each ruleset's catalog against its source data, the refusals, and the etag.

The Ticket to Ride catalog must equal ``shared/reference/ttr_europe.json`` (every city, route and
ticket, and the scoring table), the BANG! catalog the data rows (every physical card with its suit
and rank, counts per expansion, characters, roles). The etag is a hash: equal over calls, replicas
and processes, and different as soon as anything in the catalog is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import grpc
import pytest
from google.protobuf.json_format import MessageToDict
from tabletop.v1 import bang_pb2, ttr_europe_pb2
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc as rpc

from tabletop_server.service.api import rulesets
from tabletop_server.service.engine import registry
from tests import references
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import error_info

BANG_DATA = Path(__file__).resolve().parents[2] / "service" / "games" / "bang" / "data"
COLORS = {"gray": ttr_europe_pb2.TTR_COLOR_GRAY, **{
    name: getattr(ttr_europe_pb2, f"TTR_COLOR_{name.upper()}")
    for name in ("purple", "white", "blue", "yellow", "orange", "black", "red", "green")}}


def get(stub: rpc.GameServiceStub, ruleset: str) -> svc.GetRulesetResponse:
    return stub.GetRuleset(svc.GetRulesetRequest(name=f"rulesets/{ruleset}"))  # type: ignore[no-any-return]


def test_each_ruleset_comes_as_list_rulesets_gives_it_with_its_catalog(stub: rpc.GameServiceStub) -> None:
    listed = stub.ListRulesets(svc.ListRulesetsRequest()).rulesets
    assert [r.id for r in listed] == ["ttr-europe", "bang"]
    for ruleset in listed:
        reply = get(stub, ruleset.id)
        assert reply.ruleset == ruleset
        assert reply.WhichOneof("catalog") == {"ttr-europe": "ttr_europe", "bang": "bang"}[ruleset.id]
        assert reply.etag.startswith('"') and reply.etag.endswith('"') and len(reply.etag) == 34


def test_the_ttr_catalog_equals_the_reference_data(stub: rpc.GameServiceStub) -> None:
    ref = references.load("ttr_europe.json")
    catalog = get(stub, "ttr-europe").ttr_europe
    box = catalog.view_box
    assert [box.min_x, box.min_y, box.width, box.height] == ref["map"]["viewbox"] and ref["map"]["y_axis"] == "down"
    assert [(c.name, c.label, c.x, c.y) for c in catalog.cities] == sorted(
        (c["name"], c["label"], c["x"], c["y"]) for c in ref["cities"])
    partner = {}
    for r in ref["routes"]:
        for other in ref["routes"]:
            if r["double_group"] is not None and other["double_group"] == r["double_group"] and other is not r:
                partner[r["id"]] = other["id"]
    points = {int(k): v for k, v in ref["rules"]["route_points"].items()}
    assert [MessageToDict(r, preserving_proto_field_name=True) for r in catalog.routes] == [
        {"id": r["id"], "city_a": r["a"], "city_b": r["b"], "color": ttr_europe_pb2.TtrColor.Name(COLORS[r["color"]]),
         "length": r["length"], "points": points[r["length"]], **({"tunnel": True} if r["tunnel"] else {}),
         **({"ferry_locomotives": r["locomotives"]} if r["locomotives"] else {}),
         **({"double_route_id": partner[r["id"]]} if r["id"] in partner else {})}
        for r in sorted(ref["routes"], key=lambda r: r["id"])]
    assert [(t.id, t.city_a, t.city_b, t.points, t.long) for t in catalog.tickets] == sorted(
        (t["id"], t["a"], t["b"], t["points"], t["long"]) for t in ref["tickets"])
    rules = ref["rules"]
    assert {p.length: p.points for p in catalog.route_points} == points
    assert (catalog.unused_station_points, catalog.european_express_bonus, catalog.trains_per_player,
            catalog.stations_per_player, list(catalog.station_costs)) == (
        rules["points_per_unused_station"], rules["european_express_bonus"], rules["trains_per_player"],
        rules["stations_per_player"], rules["station_costs"])


def test_the_bang_catalog_equals_the_data_rows(stub: rpc.GameServiceStub) -> None:
    catalog = get(stub, "bang").bang
    rows = [row for path in sorted(BANG_DATA.glob("cards*.json"))
            for row in json.loads(path.read_text(encoding="utf-8"))["cards"]]
    copies = {c["id"]: (row["key"], c["suit"], c["rank"]) for row in rows for c in row["copies"]}
    served = {cp.card.id: (cp.card.name, bang_pb2.BangSuit.Name(cp.card.suit).removeprefix("BANG_SUIT_").lower(),
                           cp.card.rank) for card in catalog.cards for cp in card.copies}
    assert served == copies and len(served) == 148
    per_expansion = Counter(bang_pb2.BangExpansion.Name(cp.expansion) for card in catalog.cards for cp in card.copies)
    assert per_expansion == {"BANG_EXPANSION_UNSPECIFIED": 80, "BANG_EXPANSION_DODGE_CITY": 40,
                             "BANG_EXPANSION_ARMED_AND_DANGEROUS": 28}
    full_rows = {row["key"]: row for row in rows if "name" in row}  # reprints only add copies to a base card
    assert [c.key for c in catalog.cards] == list(full_rows)
    for card in catalog.cards:
        row = full_rows[card.key]
        assert (card.name, bang_pb2.BangCardColor.Name(card.color)) == (row["name"], f"BANG_CARD_COLOR_{row['color'].upper()}")
        assert card.text == row["text"] and card.text, f"{card.key} has no text for a player"
        assert bang_pb2.BangExpansion.Name(card.expansion) == (
            "BANG_EXPANSION_DODGE_CITY" if card.key in _keys("cards_dodge_city.json")
            else "BANG_EXPANSION_ARMED_AND_DANGEROUS" if card.key in _keys("cards_armed_and_dangerous.json")
            else "BANG_EXPANSION_UNSPECIFIED")
        use, upgrade = row.get("use") or {}, row.get("upgrade") or {}
        assert (card.cube_cost, card.upgrade_cost) == (use.get("cost", {}).get("cubes", 0), upgrade.get("cubes", 0))
    characters = [row for path in sorted(BANG_DATA.glob("characters*.json"))
                  for row in json.loads(path.read_text(encoding="utf-8"))["characters"]]
    assert [(c.key, c.name, c.life, c.text) for c in catalog.characters] == [
        (c["key"], c["name"], c["life"], c["text"]) for c in characters]
    assert Counter(bang_pb2.BangExpansion.Name(c.expansion) for c in catalog.characters) == {
        "BANG_EXPANSION_UNSPECIFIED": 16, "BANG_EXPANSION_DODGE_CITY": 15, "BANG_EXPANSION_ARMED_AND_DANGEROUS": 8}
    roles = json.loads((BANG_DATA / "roles.json").read_text(encoding="utf-8"))["roles"]
    assert [(bang_pb2.BangRole.Name(r.role), r.name, r.goal, r.revealed) for r in catalog.roles] == [
        (f"BANG_ROLE_{k.upper()}", v["name"], v["goal"], v["revealed"]) for k, v in roles.items()]


@pytest.mark.parametrize("name", ["rulesets/monopoly", "rulesets/ttr-europe-2"])
def test_an_unknown_ruleset_is_not_found(stub: rpc.GameServiceStub, name: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.GetRuleset(svc.GetRulesetRequest(name=name))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert error_info(err.value).reason == "RULESET_NOT_FOUND"
    assert "rulesets/ttr-europe" in (err.value.details() or "")  # says what is offered


@pytest.mark.parametrize("name", ["", "ttr-europe", "games/abc", "rulesets/", "rulesets/TTR", "rulesets/a/b",
                                  "rulesets/" + "a" * 65])
def test_a_malformed_name_is_invalid(stub: rpc.GameServiceStub, name: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.GetRuleset(svc.GetRulesetRequest(name=name))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "INVALID_NAME"


def test_the_etag_is_equal_over_calls_replicas_and_processes(stub: rpc.GameServiceStub, redis_url: str) -> None:
    first = {r: get(stub, r).etag for r in ("ttr-europe", "bang")}
    assert first == {r: get(stub, r).etag for r in first}
    other: GrpcServer = start_grpc(redis_url)
    try:
        with grpc.insecure_channel(other.target) as channel:
            assert first == {r: get(rpc.GameServiceStub(channel), r).etag for r in first}
    finally:
        other.running.stop(0)
    code = ("import json; from tabletop_server.service.api import rulesets; "
            "from tabletop_server.service.engine import registry; "
            "print(json.dumps({r: rulesets.build(registry.get(r)).etag for r in ('ttr-europe', 'bang')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60,
                         env={"PYTHONHASHSEED": "12345", "PATH": ""})
    assert json.loads(out.stdout) == first  # another interpreter, another hash seed: the same etags


def test_the_etag_changes_with_the_catalog_or_the_rules_version() -> None:
    ttr = registry.get("ttr-europe")
    assert ttr is not None
    served = rulesets.build(ttr)
    assert rulesets.etag(served) == served.etag
    moved = svc.GetRulesetResponse()
    moved.CopyFrom(served)
    moved.ttr_europe.cities[0].x += 1
    released = svc.GetRulesetResponse()
    released.CopyFrom(served)
    released.ruleset.rules_version += ".2"
    assert len({served.etag, rulesets.etag(moved), rulesets.etag(released)}) == 3


# Helpers

def _keys(name: str) -> set[str]:
    """The card names an expansion's file brings (reprint rows only add copies to a base card)."""
    raw = json.loads((BANG_DATA / name).read_text(encoding="utf-8"))
    return {row["key"] for row in raw["cards"] if "name" in row}
