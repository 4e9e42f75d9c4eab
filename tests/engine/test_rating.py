"""Who finished where, and what OpenSkill makes of it (docs/ratings.md): pure, no server."""

from __future__ import annotations

import pytest

from tabletop_server.service.engine import rating, registry
from tabletop_server.service.engine.rating import Rating
from tests.engine.ratings_kit import played


def test_ticket_to_ride_ranks_every_seat_by_the_winners_order() -> None:
    ruleset, state = played("ttr-europe", 4, 3)
    sides = ruleset.standings(state)  # type: ignore[attr-defined]
    assert sorted(s for side, _ in sides for s in side) == [0, 1, 2, 3]
    assert all(len(side) == 1 for side, _ in sides)
    by_seat = {side[0]: place for side, place in sides}
    totals = {e["seat"]: e["total"] for e in state["result"]["scores"]}
    assert {s for s, p in by_seat.items() if p == 1} == set(state["result"]["winners"])
    for a, place_a in by_seat.items():
        for b, place_b in by_seat.items():
            if totals[a] > totals[b]:
                assert place_a < place_b  # more points, a better place (no one conceded here)


def test_a_ticket_to_ride_seat_that_conceded_ranks_below_every_other() -> None:
    ruleset, state = played("ttr-europe", 3, 5)
    state["conceded"] = [state["result"]["winners"][0]]
    places = {side[0]: place for side, place in ruleset.standings(state)}  # type: ignore[attr-defined]
    assert places[state["conceded"][0]] == 3


@pytest.mark.parametrize("seats", [4, 5, 6, 7])
def test_bang_is_rated_by_side(seats: int) -> None:
    ruleset, state = played("bang", seats, 11)
    sides = ruleset.standings(state)  # type: ignore[attr-defined]
    roles = [p["role"] for p in state["p"]]
    law = sorted(s for s, r in enumerate(roles) if r in ("sheriff", "deputy"))
    outlaws = sorted(s for s, r in enumerate(roles) if r == "outlaw")
    assert sorted(sorted(side) for side, _ in sides) == sorted([law, outlaws, *([s] for s, r in enumerate(roles)
                                                                                if r == "renegade")])
    winners = [side for side, place in sides if place == 1]
    assert len(winners) == 1 and set(winners[0]) >= set(state["winners"])  # the whole side wins, the dead too
    assert all(place == 2 for side, place in sides if side is not winners[0])


def test_the_dodge_city_three_player_game_has_three_sides_of_one() -> None:
    ruleset, state = played("bang", 3, 2, expansions=["dodge_city"])
    sides = ruleset.standings(state)  # type: ignore[attr-defined]
    assert sorted(side for side, _ in sides) == [[0], [1], [2]]
    assert [side for side, place in sides if place == 1] == [state["winners"]]


def test_bang_with_eight_players_rates_each_renegade_alone() -> None:
    ruleset, state = played("bang", 8, 4, expansions=["dodge_city"])
    sides = ruleset.standings(state)  # type: ignore[attr-defined]
    renegades = [s for s, p in enumerate(state["p"]) if p["role"] == "renegade"]
    assert len(renegades) == 2 and [[r] for r in renegades] == [side for side, _ in sides if len(side) == 1
                                                                 and side[0] in renegades]


def test_a_game_still_running_has_no_standings() -> None:
    for ruleset_id, seats in (("ttr-europe", 2), ("bang", 4)):
        ruleset = registry.get(ruleset_id)
        assert ruleset is not None
        fresh = ruleset.setup(ruleset.decode_options(None), seats, 1)
        assert ruleset.standings(fresh) is None  # type: ignore[attr-defined]


def test_winners_gain_losers_lose_and_everyone_grows_surer() -> None:
    changes = rating.rate([[Rating(), Rating()], [Rating()], [Rating()]], [1, 2, 2])
    assert all(c.mu > 0 and c.won for c in changes[0])
    assert all(c.mu < 0 and not c.won for side in changes[1:] for c in side)
    assert all(c.sigma < 0 for side in changes for c in side)


def test_an_upset_moves_ratings_more_than_the_expected_result() -> None:
    strong, weak = Rating(35, 3), Rating(15, 3)
    expected = rating.rate([[strong], [weak]], [1, 2])[0][0].mu
    upset = rating.rate([[strong], [weak]], [2, 1])[0][0].mu
    assert upset < 0 < expected and abs(upset) > abs(expected)


def test_a_rated_game_needs_two_sides_none_empty() -> None:
    for sides, places in (([[Rating()]], [1]), ([[Rating()], []], [1, 2]), ([[Rating()], [Rating()]], [1])):
        with pytest.raises(ValueError):
            rating.rate(sides, places)


def test_sigma_never_falls_below_its_floor() -> None:
    low = rating.moved(Rating(30, 0.6), rating.Change(1.0, -0.5, 1, True))
    assert low.sigma == rating.SIGMA_FLOOR and low.mu == 31 and rating.ordinal(low) == 31 - 3 * rating.SIGMA_FLOOR


def test_a_side_counts_as_its_mean_not_its_head_count() -> None:
    law, outlaws, renegade = [Rating(), Rating()], [Rating(), Rating()], [Rating()]
    changes = rating.rate([law, outlaws, renegade], [1, 2, 2])
    assert changes[1][0].mu == pytest.approx(changes[2][0].mu)  # a lone Renegade loses as the Outlaws do
    assert changes[2][0].mu < 0
    alone = rating.rate([renegade, law, outlaws], [1, 2, 2])
    assert alone[0][0].mu == pytest.approx(changes[0][0].mu)  # and wins as much as a side of two
