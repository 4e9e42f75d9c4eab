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

A server seed has 256 bits (``secrets``). The document keeps the seed as 64 hex digits (``seed``;
an integer in documents stored before issue 33), a salt, the game's rules version and the
commitment published at creation (``service/engine/commitment.py``).
"""

from __future__ import annotations

import secrets
from typing import Any

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.errors import InvalidArgument, PermissionDenied, ServiceReason
from tabletop_server.service.engine.commitment import commitment
from tabletop_server.service.engine.rng import SEED_BITS, seed_hex
from tabletop_server.service.engine.ruleset import Ruleset, State

SERVER, CREATOR, OPERATOR_SCOPE = "SERVER", "CREATOR", "OPERATOR_SCOPE"
PROTO: dict[str, game_pb2.SeedSource.ValueType] = {SERVER: game_pb2.SEED_SOURCE_SERVER, CREATOR: game_pb2.SEED_SOURCE_CREATOR,
         OPERATOR_SCOPE: game_pb2.SEED_SOURCE_OPERATOR_SCOPE}


def seed_source(req: svc.CreateGameRequest, named: int, bots: dict[str, str], scoped: bool) -> str:
    """Who chooses this game's seed; raises ``PermissionDenied`` for a chosen seed nobody may choose.

    ``named``: seats filled by ``display_names`` (seats ``0..named-1``); ``bots``: bot seats by index;
    ``scoped``: the caller holds the deterministic-games scope.
    """
    if not req.HasField("seed") and not req.seed_hex:
        return SERVER
    # A seat both named and played by a bot (a bot carrying a display name) is one held seat, not two.
    open_seats = sum(1 for seat in range(req.seat_count) if seat >= named and str(seat) not in bots)
    if not open_seats:
        return CREATOR
    if scoped:
        return OPERATOR_SCOPE
    raise PermissionDenied(
        ServiceReason.SEED_CHOICE_NOT_ALLOWED,
        "A chosen seed would let the creator know every card of the other players: omit seed (the server "
        "deals), or hold every seat at creation (display_names and bots, no open seat). Deterministic games "
        "with open seats need an API key the operator granted the scope (TABLETOP_SEED_CHOICE_KEYS).",
        field="seed", open_seats=open_seats)


def source_of(doc: dict[str, Any]) -> game_pb2.SeedSource.ValueType:
    """``Game.seed_source`` of a stored game (documents stored before issue 33: ``seed_chosen`` only)."""
    stored = doc.get("seed_source")
    if stored is None:
        stored = CREATOR if doc.get("seed_chosen") else SERVER
    return PROTO[stored]


def chosen_seed(req: svc.CreateGameRequest) -> int | None:
    """The seed the creator chose (``seed``, or the 256-bit ``seed_hex``), or None; both is refused."""
    if req.HasField("seed") and req.seed_hex:
        raise InvalidArgument(ServiceReason.INVALID_SEED, "Give seed or seed_hex, not both.", field="seed_hex")
    if req.seed_hex:
        return int(req.seed_hex, 16)  # its pattern (64 lowercase hex digits) is checked before
    return req.seed if req.HasField("seed") else None


def server_seed() -> int:
    """A fresh seed nobody knows: 256 bits from the operating system's generator."""
    return secrets.randbits(SEED_BITS)


def deal_record(ruleset: Ruleset, state: State, game_id: str, seed: int) -> dict[str, str]:
    """The document fields of a new game's deal: the seed, its salt, the rules version and the commitment."""
    version = ruleset.rules_version(state)
    hexed, salt = seed_hex(seed), secrets.token_hex(32)
    return {"seed": hexed, "salt": salt, "rules_version": version,
            "commitment": commitment(ruleset.INFO.id, version, f"games/{game_id}", hexed, salt)}


def seed_of(doc: dict[str, Any]) -> int:
    """A stored game's seed (hex digits, or an integer in documents stored before issue 33)."""
    stored = doc["seed"]
    return int(stored, 16) if isinstance(stored, str) else int(stored)


def revealed(doc: dict[str, Any]) -> dict[str, Any]:
    """The ``GetGameLogResponse`` fields that open a finished game's commitment: its seed and salt."""
    seed = seed_of(doc)
    return {"seed_hex": seed_hex(seed), "seed_salt": doc.get("salt", ""),
            **({"seed": seed} if seed < 1 << 64 else {})}
