"""Who is friend and who is foe, as a BANG! bot can tell from its seat's view.

The view shows the Sheriff's role, the roles of the dead and, in the 3-player game, every role
(BANG-005, DC-044); it keeps no history of who shot whom, and a bot has no memory. So a hidden
role is judged by the odds of the roles still unseen: the table's role pool (``roles.json``,
public data) minus the roles in sight, shared evenly among the seats whose role is hidden.
``hostility`` says how much harming each living seat helps the viewer's team: above 0 a foe
(the higher, the more urgent), below 0 a friend.
"""

from __future__ import annotations

from collections import Counter

from tabletop.v1 import bang_pb2

from tabletop_server.service.games.bang.tables import MODES, ROLE_POOLS, WIN_RULE_OF

ROLE_KEYS = {bang_pb2.BANG_ROLE_SHERIFF: "sheriff", bang_pb2.BANG_ROLE_DEPUTY: "deputy",
             bang_pb2.BANG_ROLE_OUTLAW: "outlaw", bang_pb2.BANG_ROLE_RENEGADE: "renegade"}

# How much harming a player of each role helps each role (the standard game; rows: the viewer).
# The Renegade spares the Sheriff while anyone else lives: he must fall last.
STANDARD: dict[str, dict[str, float]] = {
    "sheriff": {"deputy": -1.0, "outlaw": 1.0, "renegade": 0.6},
    "deputy": {"sheriff": -2.0, "deputy": -1.0, "outlaw": 1.0, "renegade": 0.6},
    "outlaw": {"sheriff": 1.5, "deputy": 1.0, "outlaw": -1.0, "renegade": 0.4},
    "renegade": {"sheriff": -0.5, "deputy": 0.8, "outlaw": 1.0, "renegade": 0.8},
}
# The 3-player game: one's own target most, the third player a little (DC-045).
TARGET, BYSTANDER = 1.5, 0.7
LAST_DUEL = 1.5  # the Renegade alone with the Sheriff: now he must fall


def hostility(view: bang_pb2.BangView) -> dict[int, float]:
    """For every other living seat, how much harming it helps the viewer (negative: a friend)."""
    me = view.viewer_seat
    players = view.players
    mine = ROLE_KEYS[players[me].role]
    mode = MODES[WIN_RULE_OF[len(players)]]
    alive = [p for p in players if p.alive and p.seat != me]
    if mode.targets:
        target = mode.targets[mine]
        return {p.seat: TARGET if ROLE_KEYS.get(p.role) == target else BYSTANDER for p in alive}
    row = dict(STANDARD[mine])
    if mine == "renegade" and all(ROLE_KEYS.get(p.role) == "sheriff" for p in alive):
        row["sheriff"] = LAST_DUEL
    odds = hidden_role_odds(view)
    return {p.seat: row.get(ROLE_KEYS[p.role], 0.0) if p.role in ROLE_KEYS
            else sum(share * row.get(role, 0.0) for role, share in odds.items()) for p in alive}


def hidden_role_odds(view: bang_pb2.BangView) -> dict[str, float]:
    """The chance that a seat whose role is hidden holds each role."""
    players = view.players
    unseen = Counter(ROLE_POOLS[len(players)])
    hidden = 0
    for p in players:
        if p.role in ROLE_KEYS:
            unseen[ROLE_KEYS[p.role]] -= 1
        else:
            hidden += 1
    if not hidden:
        return {}
    return {role: count / hidden for role, count in unseen.items() if count > 0}
