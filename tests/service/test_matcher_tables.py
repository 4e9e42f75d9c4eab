"""How the matcher makes a table from waiting tickets (service/api/matcher.py ``plan_table``, pure): oldest
first, seat ranges that overlap, rating windows that widen with the wait, a start at the minimum after the
wait, bots only when every member asked for them (docs/matchmaking.md)."""

from __future__ import annotations

import random
from typing import Any

from tabletop_server.service.api.matcher import START_AT_MIN_AFTER, WIDEN_PER_SECOND, plan_table

NOW = 1_000_000.0


def _ticket(n: int, low: int = 2, high: int = 4, waited: float = 0.0, rating: float = 0.0, window: float = 0.0,
            bots: int = 0, player: str = "") -> dict[str, Any]:
    return {"id": f"t{n}", "player": player or f"p{n}", "min": low, "max": high, "rating": rating, "window": window,
            "bots_after": bots, "created": int((NOW - waited) * 1000)}


def test_a_full_table_starts_at_once_oldest_first() -> None:
    waiting = [_ticket(i, waited=10 - i) for i in range(6)]
    group, seats, bots = plan_table(waiting[0], waiting, NOW)
    assert [t["id"] for t in group] == ["t0", "t1", "t2", "t3"] and (seats, bots) == (4, 0)


def test_a_short_table_waits_then_starts_at_its_minimum() -> None:
    fresh = [_ticket(0, waited=1), _ticket(1, waited=0.5)]
    assert plan_table(fresh[0], fresh, NOW)[1] == 0  # two of four: wait for more
    old = [_ticket(0, waited=START_AT_MIN_AFTER), _ticket(1, waited=1)]
    assert plan_table(old[0], old, NOW)[1:] == (2, 0)


def test_seat_ranges_narrow_as_tickets_join() -> None:
    waiting = [_ticket(0, 2, 5), _ticket(1, 3, 3), _ticket(2, 4, 5), _ticket(3, 2, 5), _ticket(4, 2, 3)]
    group, seats, _ = plan_table(waiting[0], waiting, NOW)
    assert [t["id"] for t in group] == ["t0", "t1", "t3"] and seats == 3  # t2 wants 4+, t4 would fit no more


def test_a_ticket_never_joins_a_table_larger_than_it_accepts() -> None:
    waiting = [_ticket(0, 2, 5, waited=START_AT_MIN_AFTER), _ticket(1, 2, 5), _ticket(2, 2, 5), _ticket(3, 2, 2),
               _ticket(4, 2, 5)]
    group, seats, _ = plan_table(waiting[0], waiting, NOW)
    assert [t["id"] for t in group] == ["t0", "t1", "t2", "t4"] and seats == 4  # t3 wants a table of two


def test_every_table_is_a_size_each_member_accepts() -> None:
    rng = random.Random(28)
    for _ in range(2000):
        waiting = []
        for n in range(rng.randrange(1, 12)):
            low = rng.randrange(2, 6)
            waiting.append(_ticket(n, low, rng.randrange(low, 6), waited=rng.uniform(0, 2 * START_AT_MIN_AFTER),
                                   bots=rng.choice((0, 0, 1))))
        waiting.sort(key=lambda t: t["created"])
        group, seats, bots = plan_table(waiting[0], waiting, NOW)
        assert seats == 0 or all(t["min"] <= seats <= t["max"] for t in group), (waiting, seats)
        assert seats == 0 or seats == len(group) + bots


def test_every_pair_at_a_table_is_within_both_windows() -> None:
    rng = random.Random(2828)
    for _ in range(2000):
        waiting = [_ticket(n, 2, rng.randrange(2, 5), waited=rng.uniform(0, 20), rating=rng.uniform(0, 60),
                           window=rng.choice((0.0, 2.0, 10.0))) for n in range(rng.randrange(1, 12))]
        waiting.sort(key=lambda t: t["created"])
        group, seats, _ = plan_table(waiting[0], waiting, NOW)
        reach = [t["window"] + WIDEN_PER_SECOND * (NOW - t["created"] / 1000) if t["window"] else 1e9 for t in group]
        assert seats == 0 or all(abs(a["rating"] - b["rating"]) <= min(ra, rb)
                                 for a, ra in zip(group, reach, strict=True) for b, rb in zip(group, reach, strict=True))
    far = [_ticket(n, 2, 2, waited=5, rating=100.0 * n, window=1.0) for n in range(500)]  # nobody meets anybody
    assert all(plan_table(t, far, NOW)[1] == 0 for t in far)


def test_the_same_player_never_sits_twice() -> None:
    waiting = [_ticket(0, 2, 2, player="ann"), _ticket(1, 2, 2, player="ann"), _ticket(2, 2, 2, player="bob")]
    group, seats, _ = plan_table(waiting[0], waiting, NOW)
    assert [t["player"] for t in group] == ["ann", "bob"] and seats == 2


def test_rating_windows_keep_players_apart_then_widen() -> None:
    strong, weak = _ticket(0, 2, 2, rating=40, window=5), _ticket(1, 2, 2, rating=10)
    assert plan_table(strong, [strong, weak], NOW)[1] == 0  # 30 apart, a window of 5
    waited = (30 - 5) / WIDEN_PER_SECOND
    strong = _ticket(0, 2, 2, rating=40, window=5, waited=waited)
    assert plan_table(strong, [strong, weak], NOW)[1] == 2  # the window widened to 30
    picky = _ticket(1, 2, 2, rating=10, window=1)  # the other's own window counts too (it has not waited)
    assert plan_table(strong, [strong, picky], NOW)[1] == 0


def test_bots_fill_only_for_members_who_asked_after_the_anchors_wait() -> None:
    lone = _ticket(0, 3, 4, waited=2, bots=2)
    assert plan_table(lone, [lone], NOW)[1:] == (3, 2)  # the fewest seats, the rest bots
    early = _ticket(0, 3, 4, waited=1, bots=2)
    assert plan_table(early, [early], NOW)[1] == 0
    other = _ticket(1, 3, 4, waited=1, bots=0)  # asked for no bots: the table waits for players
    assert plan_table(lone, [lone, other], NOW)[1] == 0
