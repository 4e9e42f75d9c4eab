"""``tabletop backup`` / ``tabletop restore``: every game, or chosen ones, out of and into a Redis.

What a game is in Redis (``keys.py``, ``cas.lua``): every key under its hash tag
``{g:<id>}``: the hash (version and document), ``:log`` (the stream), ``:req:<seat>:<id>``
(remembered responses) and ``:reqids:<seat>`` (their index). Nothing else is needed to go on
playing it; the creators' counters (``{c:...}``) are not games and are left out.

The file is JSON lines: a header, then one line per key with its ``DUMP`` payload and its
remaining TTL. A game's keys are dumped in one ``MULTI`` (one hash slot), so its document,
version and log agree even while it is being played. ``DUMP`` payloads load into the same or
a newer Redis major version (``RESTORE`` refuses older ones).

``restore`` leaves a game that already exists alone unless ``--replace`` is given; then it
deletes that game's keys first, so no remembered response of a later version survives. A
restored game keeps the TTL it had at backup time (``PTTL``), so it expires as it would have.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import IO, Any

FORMAT = "tabletop-backup"
TAG = "{g:"


def add_commands(sub: Any) -> None:
    """The ``backup`` and ``restore`` subcommands."""
    for name, text in (("backup", "write games to a file (JSON lines of DUMP payloads)"),
                       ("restore", "load games from a backup file")):
        p = sub.add_parser(name, help=text)
        p.add_argument("file", help="the backup file ('-' for stdout/stdin)")
        p.add_argument("--game", action="append", default=[], metavar="ID",
                       help="only this game (an id or games/<id>); repeat for more; default: every game")
        p.add_argument("--redis-url", help="default: TABLETOP_REDIS_URL, else the embedded Redis's data dir")
        if name == "restore":
            p.add_argument("--replace", action="store_true", help="replace games that exist (their keys first)")


def run(args: argparse.Namespace, redis_url: str, ca_file: str = "") -> int:
    """Run ``backup`` or ``restore`` against ``redis_url``; prints a summary line to stderr."""
    client = connect(redis_url, ca_file)
    games = [g.removeprefix("games/") for g in args.game]
    try:
        if args.command == "backup":
            with _open(args.file, "w") as out:
                keys, count = backup(client, out, games or None)
            print(f"backed up {count} games ({keys} keys) to {args.file}", file=sys.stderr)
            return 0
        with _open(args.file, "r") as source:
            restored, skipped = restore(client, source, games or None, replace=args.replace)
        print(f"restored {len(restored)} games" + (f"; skipped {len(skipped)} that exist (use --replace): "
              + ", ".join(skipped) if skipped else ""), file=sys.stderr)
        return 0 if not skipped else 3
    finally:
        client.close()


def backup(client: Any, out: IO[str], games: Iterable[str] | None = None) -> tuple[int, int]:
    """Write the games (all when ``games`` is None) to ``out``; returns ``(keys, games)`` written."""
    info = client.info("server")
    out.write(json.dumps({"format": FORMAT, "version": 1, "created": time.time(),
                          "redis_version": info.get("redis_version")}) + "\n")
    wanted = set(games) if games is not None else None
    written = done = 0
    for game_id, names in sorted(_game_keys(client, wanted).items()):
        pipe = client.pipeline(transaction=True)  # one game's keys in one MULTI: a consistent copy
        for name in names:
            pipe.dump(name)
            pipe.pttl(name)
        replies = pipe.execute()
        lines: list[dict[str, Any]] = []
        for name, payload, ttl in zip(names, replies[::2], replies[1::2], strict=True):
            if payload is None:  # expired or deleted since the scan
                continue
            lines.append({"game": game_id, "key": _b64(name), "ttl_ms": max(int(ttl), 0), "dump": _b64(payload)})
        if any(_text(base64.b64decode(line["key"])) == f"{TAG}{game_id}}}" for line in lines):
            out.writelines(json.dumps(line) + "\n" for line in lines)
            written += len(lines)
            done += 1
    return written, done


def restore(client: Any, source: IO[str], games: Iterable[str] | None = None,
            replace: bool = False) -> tuple[list[str], list[str]]:
    """Load the games (all when ``games`` is None) from ``source``; returns ``(restored, skipped)``."""
    header = json.loads(source.readline() or "{}")
    if header.get("format") != FORMAT:
        raise SystemExit("not a tabletop backup file (its first line has no \"format\": \"tabletop-backup\")")
    wanted = set(games) if games is not None else None
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in source:
        if line.strip():
            record = json.loads(line)
            if wanted is None or record["game"] in wanted:
                by_game[record["game"]].append(record)
    restored, skipped = [], []
    for game_id, records in sorted(by_game.items()):
        if client.exists(f"{TAG}{game_id}}}"):
            if not replace:
                skipped.append(game_id)
                continue
            stale = list(_scan(client, f"{TAG}{game_id}}}*"))
            if stale:
                client.delete(*stale)
        pipe = client.pipeline(transaction=True)
        for record in records:
            pipe.restore(base64.b64decode(record["key"]), record["ttl_ms"], base64.b64decode(record["dump"]),
                         replace=True)
        pipe.execute()
        restored.append(game_id)
    return restored, skipped


def connect(url: str, ca_file: str = "") -> Any:
    """A synchronous redis-py client for the service's URL forms (plain, TLS, unix, Sentinel, Cluster)."""
    import redis
    from redis.cluster import RedisCluster

    tls: dict[str, Any] = {"ssl_ca_certs": ca_file} if ca_file and url.startswith("rediss") else {}
    for scheme in ("redis", "rediss"):
        if url.startswith(f"{scheme}+cluster://"):
            return RedisCluster.from_url(f"{scheme}://" + url.removeprefix(f"{scheme}+cluster://"), **tls)
    if "+sentinel://" in url:
        from redis.sentinel import Sentinel

        from tabletop_server.service.store.sentinel import SentinelUrl
        parsed = SentinelUrl.parse(url, ca_file)
        server = parsed.server
        # Sentinel is annotated from redis-py 8 on; before, calling it is an untyped call.
        sentinel = Sentinel(  # type: ignore[no-untyped-call, unused-ignore]
            list(parsed.sentinels), sentinel_kwargs={"password": parsed.sentinel_password or None},
            username=server.username or None, password=server.password or None, db=server.db,
            ssl=server.tls is not None, **tls)
        return sentinel.master_for(parsed.master)  # type: ignore[no-untyped-call, unused-ignore]
    return redis.Redis.from_url(url, **tls)


# Helpers

def _game_keys(client: Any, wanted: set[str] | None) -> dict[str, list[bytes]]:
    """Every game key, grouped by game id (one SCAN per game asked for, else one over all)."""
    patterns = [f"{TAG}{g}}}*" for g in sorted(wanted)] if wanted is not None else [f"{TAG}*"]
    grouped: dict[str, list[bytes]] = defaultdict(list)
    for pattern in patterns:
        for name in _scan(client, pattern):
            text = _text(name)
            game_id = text[len(TAG):text.index("}")]
            grouped[game_id].append(name)
    return grouped


def _scan(client: Any, pattern: str) -> Iterator[bytes]:
    seen = set()
    for name in client.scan_iter(match=pattern, count=1000):
        name = name if isinstance(name, bytes) else name.encode()
        if name not in seen:  # SCAN may return a key twice
            seen.add(name)
            yield name


def _open(path: str, mode: str) -> IO[str]:
    if path == "-":
        stream = sys.stdout if mode == "w" else sys.stdin
        return open(stream.fileno(), mode, closefd=False)
    return open(path, mode)


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
