"""Who may choose a game's seed, and how a game records who did (issue 33; docs/fair-play.md).

The seed fixes every shuffle and deal, so whoever chose it knows every card the others will draw.
A chosen seed (``CreateGameRequest.seed``) is accepted only where nobody can be cheated:

- every seat is held by the creator at creation (named in ``display_names`` or played by a bot,
  no open seat), so no other player can ever sit at the table: ``CREATOR``;
- or the caller holds the deterministic-games scope the operator grants to API keys
  (``TABLETOP_SEED_CHOICE_KEYS``; ``*`` for every caller on test servers): ``OPERATOR_SCOPE``.

Anything else is refused (PERMISSION_DENIED ``SEED_CHOICE_NOT_ALLOWED``) before anything is
written. The source is stored in the game document (``seed_source``) and shown as
``Game.seed_source``; documents stored before it carry only ``seed_chosen``.
"""

from __future__ import annotations

from typing import Any

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.errors import PermissionDenied, ServiceReason

SERVER, CREATOR, OPERATOR_SCOPE = "SERVER", "CREATOR", "OPERATOR_SCOPE"
PROTO: dict[str, game_pb2.SeedSource.ValueType] = {SERVER: game_pb2.SEED_SOURCE_SERVER, CREATOR: game_pb2.SEED_SOURCE_CREATOR,
         OPERATOR_SCOPE: game_pb2.SEED_SOURCE_OPERATOR_SCOPE}


def seed_source(req: svc.CreateGameRequest, named: int, bots: dict[str, str], scoped: bool) -> str:
    """Who chooses this game's seed; raises ``PermissionDenied`` for a chosen seed nobody may choose.

    ``named``: seats filled by ``display_names`` (seats ``0..named-1``); ``bots``: bot seats by index;
    ``scoped``: the caller holds the deterministic-games scope.
    """
    if not req.HasField("seed"):
        return SERVER
    if all(seat < named or str(seat) in bots for seat in range(req.seat_count)):
        return CREATOR
    if scoped:
        return OPERATOR_SCOPE
    raise PermissionDenied(
        ServiceReason.SEED_CHOICE_NOT_ALLOWED,
        "A chosen seed would let the creator know every card of the other players: omit seed (the server "
        "deals), or hold every seat at creation (display_names and bots, no open seat). Deterministic games "
        "with open seats need an API key the operator granted the scope (TABLETOP_SEED_CHOICE_KEYS).",
        field="seed", open_seats=req.seat_count - named - len(bots))


def source_of(doc: dict[str, Any]) -> game_pb2.SeedSource.ValueType:
    """``Game.seed_source`` of a stored game (documents stored before issue 33: ``seed_chosen`` only)."""
    stored = doc.get("seed_source")
    if stored is None:
        stored = CREATOR if doc.get("seed_chosen") else SERVER
    return PROTO[stored]
