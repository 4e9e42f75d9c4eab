"""Who finished where in a BANG! game, by side, for ratings (docs/ratings.md).

BANG! is won by a side, not a player: the Sheriff with his Deputies, the Outlaws, and each
Renegade alone (with 8 players the two Renegades each play for themselves, DC-042). A side that
won is placed first, every other side second: the rules rank no losers, and a side is judged as a
whole, whoever of it was still alive (a Deputy shot early wins with his Sheriff). The Dodge City
3-player game (Deputy, Outlaw, Renegade, each with a target of his own, DC-047) has three sides
of one player each, one of whom wins.
"""

from __future__ import annotations

from tabletop_server.service.games.bang.layout import State

LAW = ("sheriff", "deputy")


def standings(state: State) -> list[tuple[list[int], int]] | None:
    """Each side's seats with its place (1: won, 2: lost); None while nobody has won."""
    winners = set(state["winners"])
    if state["phase"] != "over" or not winners:
        return None
    roles = [p["role"] for p in state["p"]]
    sides: list[list[int]] = []
    if len(roles) == 3:  # every role plays alone
        sides = [[seat] for seat in range(3)]
    else:
        law = [s for s, r in enumerate(roles) if r in LAW]
        outlaws = [s for s, r in enumerate(roles) if r == "outlaw"]
        renegades = [[s] for s, r in enumerate(roles) if r == "renegade"]
        sides = [side for side in (law, outlaws, *renegades) if side]
    return [(side, 1 if winners & set(side) else 2) for side in sides]
