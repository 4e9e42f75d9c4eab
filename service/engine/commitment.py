"""The deal's commitment: published at creation, opened by the seed the finished game reveals (issue 33).

``commitment = SHA-256(UTF-8 of the lines below, each ending in "\\n")``, as 64 lowercase hex digits:

    tabletop/deal-commitment/1
    <ruleset id>            e.g. ttr-europe
    <rules version>         e.g. ttr-europe/2005-official.2, bang-ad-3
    <game resource name>    games/<id>
    <seed>                  64 hex digits, the 256-bit seed big-endian (rng.seed_hex)
    <salt>                  64 hex digits, drawn by the server for this game

The salt keeps a low-entropy seed (a chosen 64-bit one) from being found by trying seeds against
the commitment; the game name binds the commitment to one game, so it cannot be reused for another.
Both the seed and the salt are published once the game is over (GetGameLog), and anyone can
recompute this (docs/fair-play.md; ``tabletop verify``).
"""

from __future__ import annotations

import hashlib
import hmac

SCHEME = "tabletop/deal-commitment/1"


def commitment(ruleset: str, rules_version: str, game: str, seed_hex: str, salt_hex: str) -> str:
    """The commitment to a game's seed, as published in ``Game.seed_commitment``."""
    text = "".join(f"{line}\n" for line in (SCHEME, ruleset, rules_version, game, seed_hex, salt_hex))
    return hashlib.sha256(text.encode()).hexdigest()


def opens(published: str, ruleset: str, rules_version: str, game: str, seed_hex: str, salt_hex: str) -> bool:
    """Whether the revealed seed and salt open the published commitment."""
    return hmac.compare_digest(published, commitment(ruleset, rules_version, game, seed_hex, salt_hex))
