"""The BANG! catalog (GetRuleset): the loaded card, character and role tables as a ``BangCatalog``.

Built from ``tables`` (the rows ``catalog`` loaded and validated at import), never from the JSON
again, so what a client reads and what the rules play cannot disagree. Every expansion whose rows
are loaded is in it, each row marked with its expansion (the base game: unspecified), with the
Armed & Dangerous cube costs. The ruleset contract's optional ``encode_catalog()``
(``service/engine/ruleset.py``).
"""

from __future__ import annotations

from tabletop.v1 import bang_pb2 as pb

from tabletop_server.service.games.bang.codec import EXPANSION_PB, ROLE_PB, card_pb
from tabletop_server.service.games.bang.tables import CARDS, CHARACTERS, ROLES, TYPES

COLOR_PB = {"brown": pb.BANG_CARD_COLOR_BROWN, "blue": pb.BANG_CARD_COLOR_BLUE,
            "green": pb.BANG_CARD_COLOR_GREEN, "orange": pb.BANG_CARD_COLOR_ORANGE}
BASE = pb.BangExpansion.ValueType(0)  # the base game has no BangExpansion value: unspecified


def encode_catalog() -> pb.BangCatalog:
    """The catalog, in the rows' order (cards by name, each with its copies; characters; roles)."""
    copies: dict[str, list[pb.BangCatalogCopy]] = {key: [] for key in TYPES}
    for cid, card in CARDS.items():
        copies[card.key].append(pb.BangCatalogCopy(card=card_pb(cid), expansion=_expansion(card.expansion)))
    return pb.BangCatalog(
        cards=[pb.BangCatalogCard(key=t.key, name=t.name, color=COLOR_PB[t.color], expansion=_expansion(t.expansion),
                                  text=t.text, copies=copies[t.key],
                                  cube_cost=int(t.use.cost.get("cubes", 0)) if t.use is not None else 0,
                                  upgrade_cost=int(t.upgrade.get("cubes", 0))) for t in TYPES.values()],
        characters=[pb.BangCatalogCharacter(key=c.key, name=c.name, life=c.life, text=c.text,
                                            expansion=_expansion(c.expansion)) for c in CHARACTERS.values()],
        roles=[pb.BangCatalogRole(role=ROLE_PB[r.key], name=r.name, goal=r.goal, revealed=r.revealed)
               for r in ROLES.values()],
    )


# Helpers

def _expansion(name: str) -> pb.BangExpansion.ValueType:
    return EXPANSION_PB.get(name, BASE)
