"""The deal is uniform under the SHAKE-256 generator (issue 33): chi-square tests over many dealt games.

Each check takes one value per game (so the samples are independent), counts it over its possible
values, and compares the counts with what a fair deal gives: uniform for a first player, a dealt role,
a character, the first card of a hand, a ticket; the hypergeometric law for the locomotives in a first
hand; and, for the face-up row (which the three-locomotive rule redeals), the same distribution in
each of its five slots. A check passes when its p-value is above ``P_MIN``; the seeds are fixed, so the
outcome never varies, and the p-values are printed (``pytest -s``) and named in any failure. A biased
generator fails the same checks (the last test), so they can fail.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

from tabletop_server.service.engine import rng as rng_module
from tabletop_server.service.games import bang
from tabletop_server.service.games import ttr_europe as ttr
from tabletop_server.service.games.bang.tables import CHARACTERS
from tabletop_server.service.games.ttr_europe.board import LONG_TICKETS, REGULAR_TICKETS

P_MIN = 0.001  # the fixed threshold: a fair deal fails one check 1 time in 1,000
GAMES = 3000


def chi_square_p(observed: Sequence[float], expected: Sequence[float]) -> float:
    """The p-value of Pearson's chi-square statistic with ``len(observed) - 1`` degrees of freedom."""
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    return chi_square_sf(stat, len(observed) - 1)


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom (the closed forms for whole ``df``)."""
    half = x / 2
    if df % 2 == 0:
        return math.exp(-half) * sum(half ** i / math.factorial(i) for i in range(df // 2))
    tail = sum(math.exp((i - 0.5) * math.log(half) - half - math.lgamma(i + 0.5)) for i in range(1, (df + 1) // 2)) \
        if half > 0 else 0.0
    return math.erfc(math.sqrt(half)) + tail


def uniform_p(values: Iterable[Any], support: Sequence[Any]) -> float:
    counts = Counter(values)
    assert set(counts) <= set(support), set(counts) - set(support)
    total = sum(counts.values())
    return chi_square_p([counts[v] for v in support], [total / len(support)] * len(support))


def homogeneity_p(rows: list[Counter[Any]]) -> float:
    """Chi-square test that every row (a face-up slot) has the same distribution over the columns."""
    columns = sorted({c for row in rows for c in row})
    totals = [sum(row.values()) for row in rows]
    grand = sum(totals)
    stat = sum((row[c] - t * sum(r[c] for r in rows) / grand) ** 2 / (t * sum(r[c] for r in rows) / grand)
               for row, t in zip(rows, totals, strict=True) for c in columns)
    return chi_square_sf(stat, (len(rows) - 1) * (len(columns) - 1))


def ttr_checks(games: int = GAMES) -> dict[str, float]:
    """p-values of the Ticket to Ride deal (3 seats): first player, first hand, tickets, face-up row."""
    states = [ttr.setup({}, 3, seed) for seed in range(games)]
    locos = Counter(min(s["hands"][0][8], 3) for s in states)  # 0, 1, 2, 3 or more locomotives of 4 cards
    law = [math.comb(14, k) * math.comb(96, 4 - k) / math.comb(110, 4) for k in range(3)]
    slots = [Counter(s["face_up"][slot] for s in states) for slot in range(5)]
    return {
        "ttr first player": uniform_p((s["first"] for s in states), range(3)),
        "ttr locomotives in the first hand": chi_square_p([locos[k] for k in range(4)],
                                                          [games * p for p in [*law, 1 - sum(law)]]),
        "ttr long ticket of seat 0": uniform_p((s["offered"][0][0] for s in states), LONG_TICKETS),
        "ttr first regular ticket of seat 0": uniform_p((s["offered"][0][1] for s in states), REGULAR_TICKETS),
        "ttr face-up slots alike": homogeneity_p(slots),
    }


def bang_checks(games: int = GAMES) -> dict[str, float]:
    """p-values of the BANG! deal (base game, 4 seats): the Sheriff, seat 0's character and first card."""
    states = [bang.setup({}, 4, seed) for seed in range(games)]
    base = sorted(k for k, c in CHARACTERS.items() if c.expansion == "base")
    deck = sorted(bang.setup({}, 4, 0)["deck"] + [c for p in bang.setup({}, 4, 0)["p"] for c in p["hand"]])
    return {
        "bang Sheriff's seat": uniform_p(([p["role"] for p in s["p"]].index("sheriff") for s in states), range(4)),
        "bang character of seat 0": uniform_p((s["p"][0]["char"] for s in states), base),
        "bang first card of seat 0": uniform_p((s["p"][0]["hand"][0] for s in states), deck),
    }


@pytest.mark.parametrize("checks", [ttr_checks, bang_checks], ids=["ttr-europe", "bang"])
def test_the_deal_is_uniform(checks: Callable[[], dict[str, float]]) -> None:
    p_values = checks()
    print(f"\nchi-square p-values ({GAMES} games each, threshold {P_MIN}):",
          *(f"  {name}: {p:.4f}" for name, p in p_values.items()), sep="\n")
    assert min(p_values.values()) > P_MIN, p_values


def test_the_games_deal_from_shake256() -> None:
    assert isinstance(ttr.setup({}, 3, 1)["rng"], list) and isinstance(bang.setup({}, 4, 1)["rng"], list)


def test_the_chi_square_tail_is_right() -> None:
    # Known quantiles: the 0.95 quantile of chi-square with 1, 2, 5 and 39 degrees of freedom.
    for x, df in ((3.841459, 1), (5.991465, 2), (11.070498, 5), (54.572228, 39)):
        assert chi_square_sf(x, df) == pytest.approx(0.05, abs=1e-5)


def test_a_biased_generator_fails_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks can fail: a generator that favours low numbers (the lower of two draws) is caught."""
    fair = rng_module.Rng.below
    monkeypatch.setattr(rng_module.Rng, "below", lambda self, n: min(fair(self, n), fair(self, n)))
    assert min(ttr_checks(600).values()) < P_MIN
    assert min(bang_checks(600).values()) < P_MIN
