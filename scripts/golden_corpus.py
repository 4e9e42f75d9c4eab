"""The BANG! golden corpus (issue 30): seeded games recorded step by step, replayed and compared byte for byte.

    .venv/bin/python scripts/golden_corpus.py record --games 1000            # every table -> tests/golden/bang/
    .venv/bin/python scripts/golden_corpus.py record --table ad --games 50   # one table
    .venv/bin/python scripts/golden_corpus.py check                          # replay every stored game
    .venv/bin/python scripts/golden_corpus.py record-digests --games 1000    # every table's digests
    .venv/bin/python scripts/golden_corpus.py check-digests                  # play them again, compare

A refactor of the BANG! rules must change nothing a player can see. Each stored game is what creates it and
how it went, not its payloads: the dealt state (stored whole, so that a later change of how new games are
dealt, such as issue 33's random generator, cannot change what the corpus replays), the seat count and
options, the actions in order, and a digest chain. Step 0 is the dealt state; step k the state after the
k-th action. Each step's payloads in their stored or wire form are: the state as the store writes it
(orjson), the step's events as the log keeps them (orjson), and for every seat and the spectator the view
(deterministic protobuf bytes), the events projected for that viewer (encoded, deterministic bytes) and the
seat's legal actions (orjson). ``chain[k] = SHA-256(chain[k-1] + SHA-256 of each payload)``; the file keeps
2 bytes of each link and the whole last one, so a mismatch names the game and its first differing step (a
chained link differs at every later step too; 2 bytes let a divergence go unseen for one step once in
65,536, so the step named is then one late). The links are most of a stored game: 2 bytes keep the
corpus small enough to commit. The replay re-applies the stored actions to the stored state
and recomputes the chain; it never calls ``setup`` or a bot.

Files: ``tests/golden/bang/<table>.jsonl.xz``, one JSON line per game (``FROZEN``: corpora an older
release recorded, only checked). Tables: ``base`` (4-7 seats),
``dc`` (Dodge City, 3-8), ``ad`` (Armed & Dangerous, 4-7), ``both`` (3-8); the seat count cycles with the
game's number. Actions are chosen while recording by bots (``basic`` and ``random`` seats alternating),
seeded by the game's number, to the game's end.

Digests (``tests/golden/bang/<table>.digests.xz``): 1,000 games of each table, of which only the seat count,
the number of actions and the last link of the chain are kept (one line each, ``game seats actions last``),
recorded at commit 013d9dd (before issue 30's last rework: names out of the mechanics, typed actions and
events). Today's ``setup`` deals them, so their games are not the full recordings' (those keep the states
dealt before issue 33's generator). A game is checked by playing
it again from its seed, dealt by ``setup`` and played by the same bots, and comparing its last link: it proves
the same as a full game (every state, event, view, projection and legal-action list of every step), but names
no step, and it assumes that dealing and the bots did not change (a change there is rerecorded on purpose,
with the reason in its commit). Why so: 1,000 full games per table are about 4x the 1.3 MB committed and 4x
the replay time of the full corpus; the digests are about 90 kB for the four tables and are checked in the
slow tier only. The full 250 per table keep the step-precise check and the stored dealt states.
"""

from __future__ import annotations

import argparse
import hashlib
import lzma
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from google.protobuf.message import Message

from tabletop_server.service.engine.bots import choose
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "golden" / "bang"
LINK_BYTES = 2
FIRST_SEED = 30_000


@dataclass(frozen=True)
class Table:
    """A kind of game: its options and the seat counts its games cycle through."""

    name: str
    expansions: tuple[str, ...]
    seats: tuple[int, ...]

    def options(self) -> dict[str, Any]:
        return {"expansions": list(self.expansions)}

    def seat_count(self, game: int) -> int:
        return self.seats[game % len(self.seats)]


TABLES = {t.name: t for t in (
    Table("base", (), (4, 5, 6, 7)),
    Table("dc", ("dodge_city",), (3, 4, 5, 6, 7, 8)),
    Table("ad", ("armed_and_dangerous",), (4, 5, 6, 7)),
    Table("both", ("dodge_city", "armed_and_dangerous"), (3, 4, 5, 6, 7, 8)),
)}

# Corpora recorded by an older release and kept as they are (never recorded again: today's setup deals
# today's version): 100 games each of ``ad`` and ``both`` recorded at commit 631f2bf, the last before
# issue 32, so stored as ``bang-ad-1``; they prove such games still play exactly as they did.
FROZEN = {"ad-v1": "bang-ad-1 games of the ad table, recorded at 631f2bf (before issue 32)",
          "both-v1": "bang-ad-1 games of the both table, recorded at 631f2bf (before issue 32)"}


def _sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


Seen = tuple[list[Message], list[list[Action]]]


def seen_in(state: State) -> Seen:
    """What the step's viewers are shown: every seat's view then the spectator's, and every seat's legal
    actions (built once: the payloads and the next bot's choice both read them)."""
    seats = len(state["p"])
    return bang.views(state, [*range(seats), None]), [bang.legal_actions(state, s) for s in range(seats)]


def step_payloads(state: State, events: list[Event], seen: Seen | None = None) -> Iterator[bytes]:
    """Every payload of one step, in a fixed order (see the module docstring)."""
    yield orjson.dumps(state)
    yield orjson.dumps(events)
    views, legal = seen or seen_in(state)
    encoded: dict[bytes, bytes] = {}  # an event's wire bytes by its JSON: most viewers are shown the same event
    for viewer, shown_view in zip([*range(len(legal)), None], views):
        yield shown_view.SerializeToString(deterministic=True)
        for event in events:
            shown = bang.project(event, viewer)
            if shown is None:
                yield b"-"
                continue
            key = orjson.dumps(shown)
            if key not in encoded:
                encoded[key] = bang.encode_event(shown).SerializeToString(deterministic=True)
            yield encoded[key]
        if viewer is not None:
            yield orjson.dumps(legal[viewer])


def link(previous: bytes, state: State, events: list[Event], seen: Seen | None = None) -> bytes:
    """The next link of a game's digest chain."""
    digest = hashlib.sha256(previous)
    for payload in step_payloads(state, events, seen):
        digest.update(_sha(payload))
    return digest.digest()


def record_game(table: Table, game: int) -> dict[str, Any]:
    """Deal and play one game of ``table``; what the corpus keeps of it."""
    seats, seed = table.seat_count(game), FIRST_SEED + game
    state = bang.setup(table.options(), seats, seed)
    dealt = orjson.loads(orjson.dumps(state))
    bots = ["basic" if (seat + game) % 2 else "random" for seat in range(seats)]
    seen = seen_in(state)
    chain = link(b"", state, [], seen)
    links, actions = [chain[:LINK_BYTES]], []
    for step in range(bang.INFO.max_actions):
        if bang.is_over(state):
            break
        seat = bang.to_act(state)[0]
        action = choose(bang, state, seat, bots[seat], seed * 1_000_003 + step,
                        legal=seen[1][seat], view=seen[0][seat])
        events = bang.apply(state, seat, action)
        actions.append([seat, action])
        seen = seen_in(state)
        chain = link(chain, state, events, seen)
        links.append(chain[:LINK_BYTES])
    return {"game": game, "seats": seats, "options": table.options(), "state": dealt, "actions": actions,
            "links": b"".join(links).hex(), "last": chain.hex()}


def replay_game(record: dict[str, Any]) -> str | None:
    """Replay a stored game; None when every step matches, else what differs first (game and step)."""
    state: State = orjson.loads(orjson.dumps(record["state"]))
    links = bytes.fromhex(record["links"])
    chain = link(b"", state, [])
    where = f"game {record['game']} ({record['seats']} seats)"
    if chain[:LINK_BYTES] != links[:LINK_BYTES]:
        return f"{where}: step 0 (the dealt state) differs"
    for step, (seat, action) in enumerate(record["actions"], start=1):
        try:
            events = bang.apply(state, seat, _action(action))
        except Exception as err:  # noqa: BLE001  # a refusal or a crash is a difference too: name it
            return f"{where}: step {step} (seat {seat} {action}) raised {err!r}"
        chain = link(chain, state, events)
        if chain[:LINK_BYTES] != links[step * LINK_BYTES:(step + 1) * LINK_BYTES]:
            return f"{where}: step {step} (seat {seat} {action}) differs"
    if chain.hex() != record["last"]:
        return f"{where}: the last digest differs"
    return None


def _action(raw: Any) -> Action:
    return dict(raw)


def path_of(table: str, folder: Path = FOLDER) -> Path:
    return folder / f"{table}.jsonl.xz"


def record(table: Table, games: int, folder: Path = FOLDER) -> Path:
    """Record ``games`` games of ``table`` into its file (replacing it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = path_of(table.name, folder)
    with lzma.open(path, "wb", preset=9 | lzma.PRESET_EXTREME) as out:
        for game in range(games):
            out.write(orjson.dumps(record_game(table, game)) + b"\n")
    return path


def stored(table: str, folder: Path = FOLDER) -> Iterator[dict[str, Any]]:
    """The stored games of one table, in order."""
    with lzma.open(path_of(table, folder), "rb") as lines:
        for line in lines:
            yield orjson.loads(line)


def check(table: str, folder: Path = FOLDER, part: int = 0, parts: int = 1) -> tuple[int, list[str]]:
    """Replay the stored games of ``table`` (every one, or games ``part``, ``part + parts``, ... so that the
    parts of one table replay side by side): how many, and each difference found."""
    count, differences = 0, []
    for index, game in enumerate(stored(table, folder)):
        if index % parts != part:
            continue
        count += 1
        found = replay_game(game)
        if found is not None:
            differences.append(f"{table} {found}")
    return count, differences


def digests_path(table: str, folder: Path = FOLDER) -> Path:
    return folder / f"{table}.digests.xz"


def digest_line(table: Table, game: int) -> str:
    """One game of ``table`` played from its seed: ``game seats actions last``."""
    played = record_game(table, game)
    return f"{game} {played['seats']} {len(played['actions'])} {played['last']}"


def record_digests(table: Table, games: int, folder: Path = FOLDER) -> Path:
    """Record the digests of games 0 .. ``games - 1`` of ``table`` (replacing its file)."""
    path = digests_path(table.name, folder)
    with lzma.open(path, "wt", encoding="ascii", preset=9 | lzma.PRESET_EXTREME) as out:
        for game in range(games):
            out.write(digest_line(table, game) + "\n")
    return path


def stored_digests(table: str, folder: Path = FOLDER) -> list[str]:
    """The stored digest lines of one table, in game order."""
    with lzma.open(digests_path(table, folder), "rt", encoding="ascii") as lines:
        return [line.rstrip("\n") for line in lines]


def check_digests(table: str, folder: Path = FOLDER, part: int = 0, parts: int = 1) -> tuple[int, list[str]]:
    """Play the digested games of ``table`` again (every one, or one part of them): how many, and each
    game whose seat count, action count or last link differs."""
    count, differences = 0, []
    for index, line in enumerate(stored_digests(table, folder)):
        if index % parts != part:
            continue
        count += 1
        game = int(line.split()[0])
        again = digest_line(TABLES[table], game)
        if again != line:
            differences.append(f"{table} game {game}: stored {line!r}, played {again!r}")
    return count, differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("record", "check", "record-digests", "check-digests"))
    parser.add_argument("--table", choices=sorted([*TABLES, *FROZEN]), action="append",
                        help="default: every table (check: and the frozen corpora)")
    parser.add_argument("--games", type=int, default=1000, help="games per table (record)")
    parser.add_argument("--folder", type=Path, default=FOLDER)
    args = parser.parse_args(argv)
    failed = False
    if args.command.endswith("digests"):
        return _digests(args.command, args.table or list(TABLES), args.games, args.folder)
    for name in args.table or [*TABLES, *(FROZEN if args.command == "check" else {})]:
        if args.command == "record" and name in FROZEN:
            parser.error(f"{name} was recorded by an older release ({FROZEN[name]}); it is only checked")
        if args.command == "record":
            path = record(TABLES[name], args.games, args.folder)
            print(f"{name}: {args.games} games -> {path} ({path.stat().st_size:,} bytes)")
            continue
        count, differences = check(name, args.folder)
        print(f"{name}: {count} games replayed, {len(differences)} differ")
        for line in differences:
            print("  " + line)
        failed = failed or bool(differences)
    return 1 if failed else 0


def _digests(command: str, tables: list[str], games: int, folder: Path) -> int:
    failed = False
    for name in tables:
        if name in FROZEN:
            raise SystemExit(f"{name} has no digests (only the tables recorded today do)")
        if command == "record-digests":
            path = record_digests(TABLES[name], games, folder)
            print(f"{name}: {games} digests -> {path} ({path.stat().st_size:,} bytes)")
            continue
        count, differences = check_digests(name, folder)
        print(f"{name}: {count} games played again, {len(differences)} differ")
        for line in differences:
            print("  " + line)
        failed = failed or bool(differences)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
