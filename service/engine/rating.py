"""Skill ratings with OpenSkill (Weng-Lin, the Plackett-Luce model): pure arithmetic, no storage.

A rating is a belief about a player's skill: ``mu`` (the mean) and ``sigma`` (how unsure it is). The
number shown and ranked is the conservative ``mu - 3 sigma`` (:func:`ordinal`): a new player starts at
0 and climbs as games make the service surer. Plackett-Luce takes any number of sides of any size with
ties, which covers both games (docs/ratings.md: a Ticket to Ride ranking of all seats, BANG! by side).

A game's update is computed once, as *changes* (:class:`Change`), and each player's stored rating
moves by its change (``service/store/ratings.py``): two games of one player that finish together
then both count, whichever is written first.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import fsum, sqrt

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
MU, SIGMA = MODEL.mu, MODEL.sigma  # 25 and 25/3: the rating of a player who never played
SIGMA_FLOOR = 0.5  # sigma never falls below it when changes are added up (it keeps ratings movable)


@dataclass(frozen=True)
class Rating:
    """One player's rating in one ruleset."""

    mu: float = MU
    sigma: float = SIGMA


@dataclass(frozen=True)
class Change:
    """What one game did to one player's rating (``after - before``), and how the player did."""

    mu: float
    sigma: float
    place: int
    won: bool


def ordinal(rating: Rating) -> float:
    """The displayed, ranked rating: ``mu - 3 sigma`` (99.7% sure the skill is above it)."""
    return rating.mu - 3 * rating.sigma


def rate(sides: list[list[Rating]], places: list[int]) -> list[list[Change]]:
    """Each player's change after one game: ``sides`` in any order, ``places`` 1 for first (ties equal).

    A side is rated as one player whose rating is its members' mean (mu, and sigma as the root mean
    square), and each member moves as that player does: OpenSkill's own teams add their members' skills,
    so a side of three would be expected to beat a side of one, but BANG!'s roles balance the sides by
    their cards, not their head count (a lone Renegade is no weaker a side than three Outlaws)."""
    if len(sides) != len(places) or len(sides) < 2 or any(not side for side in sides):
        raise ValueError("a rated game has two sides or more, none empty, each with a place")
    means = [Rating(fsum(r.mu for r in side) / len(side), sqrt(fsum(r.sigma ** 2 for r in side) / len(side)))
             for side in sides]
    after = MODEL.rate([[MODEL.rating(mu=m.mu, sigma=m.sigma)] for m in means], ranks=[float(p) for p in places])
    out = []
    for side, mean, (new,), place in zip(sides, means, after, places, strict=True):
        shrink = new.sigma / mean.sigma
        out.append([Change(new.mu - mean.mu, r.sigma * shrink - r.sigma, place, place == 1) for r in side])
    return out


def moved(rating: Rating, change: Change) -> Rating:
    """``rating`` after ``change`` (sigma kept at :data:`SIGMA_FLOOR` or above)."""
    return Rating(rating.mu + change.mu, max(SIGMA_FLOOR, rating.sigma + change.sigma))
