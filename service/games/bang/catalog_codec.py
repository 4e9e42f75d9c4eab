"""The BANG! catalog (GetRuleset): the loaded card, character and role tables as a ``BangCatalog``.

Built from ``tables`` (the rows ``catalog`` loaded and validated at import), never from the JSON
again, so what a client reads and what the rules play cannot disagree. Every expansion whose rows
are loaded is in it, each row marked with its expansion (the base game: unspecified), with the
Armed & Dangerous cube costs. The ruleset contract's optional ``encode_catalog()``
(``service/engine/ruleset.py``). ``localize_catalog`` puts the Czech editions' card names, card and
character texts and role names into it (``data/catalog_cs.json``; character names are the same in every
edition), for GetRuleset's ``language_code``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

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


CATALOG_LANGUAGES = ("cs",)
DATA = Path(__file__).parent / "data"


def localize_catalog(catalog: pb.BangCatalog, language: str) -> pb.BangCatalog:
    """A copy of ``catalog`` with the names and texts of ``language`` (one of CATALOG_LANGUAGES); a row
    the translation lacks keeps its English words (tests/games/bang check that none does)."""
    words = _words(language)
    localized = pb.BangCatalog()
    localized.CopyFrom(catalog)
    for card in localized.cards:
        row = words["cards"].get(card.key, {})
        card.name = row.get("name", card.name)
        card.text = row.get("text", card.text)
    for character in localized.characters:
        character.text = words["characters"].get(character.key, {}).get("text", character.text)
    for role in localized.roles:
        row = words["roles"].get(pb.BangRole.Name(role.role).removeprefix("BANG_ROLE_").lower(), {})
        role.name = row.get("name", role.name)
        role.goal = row.get("goal", role.goal)
    return localized


# Helpers

@cache
def _words(language: str) -> dict[str, dict[str, dict[str, str]]]:
    raw = json.loads((DATA / f"catalog_{language}.json").read_text(encoding="utf-8"))
    return {part: raw[part] for part in ("cards", "characters", "roles")}


def _expansion(name: str) -> pb.BangExpansion.ValueType:
    return EXPANSION_PB.get(name, BASE)
