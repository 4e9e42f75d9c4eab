"""Redis server settings that can lose games, checked on start and with every health check.

Two settings lose games outright (issue 12):

- an eviction policy other than ``noeviction``: every game key has a TTL, so ``volatile-*``
  policies (and ``allkeys-*``) evict *live* games when memory runs short;
- no persistence at all (``appendonly no`` and ``save ""``): a restart of Redis empties it.

``TABLETOP_REDIS_SAFETY=refuse`` (the default: fail closed) keeps the service NOT_SERVING
(gRPC health, so REST ``/readyz`` answers 503) while either holds; ``warn`` serves and logs.
Snapshots only (``appendonly no`` with ``save`` rules) are not refused, but logged: a crash
loses the writes since the last snapshot. Managed services that disable ``CONFIG`` cannot
be checked; that is logged once, and the server counts as unknown (served).

On Redis Cluster every primary is checked; Sentinel URLs check the current primary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis import exceptions

SETTINGS = ("maxmemory-policy", "appendonly", "save")


@dataclass(frozen=True)
class Verdict:
    """What the check found: ``problems`` lose games; ``notes`` are weaker; ``unknown`` says why
    nothing could be checked."""

    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    unknown: str = ""

    @property
    def safe(self) -> bool:
        return not self.problems


async def check(client: Any) -> Verdict:
    """Read the settings from every primary behind ``client`` and judge them."""
    try:
        nodes = await _settings(client)
    except exceptions.ResponseError as exc:  # unknown command (renamed/disabled) or NOPERM
        return Verdict(unknown=f"CONFIG GET is refused by this Redis ({exc}); its eviction policy and "
                               "persistence cannot be checked: make sure they are noeviction and AOF")
    problems: list[str] = []
    notes: list[str] = []
    for node, values in nodes.items():
        where = f" on {node}" if node else ""
        policy = values.get("maxmemory-policy", "")
        if policy and policy != "noeviction":
            problems.append(f"maxmemory-policy is {policy}{where}: every game has a TTL, so Redis may evict live "
                            "games when memory is short; set maxmemory-policy noeviction")
        aof, save = values.get("appendonly", ""), values.get("save", None)
        if aof == "no" and save == "":
            problems.append(f"no persistence{where} (appendonly no, save \"\"): a restart of Redis loses every "
                            "game; set appendonly yes")
        elif aof == "no" and save:
            notes.append(f"snapshots only{where} (appendonly no, save \"{save}\"): a crash loses the moves "
                         "since the last snapshot; set appendonly yes")
    return Verdict(tuple(problems), tuple(notes))


def describe(verdict: Verdict, mode: str) -> str:
    """The log line for a verdict under ``TABLETOP_REDIS_SAFETY=mode``."""
    if verdict.unknown:
        return f"Redis safety unknown: {verdict.unknown}"
    if verdict.problems:
        action = ("refusing to become ready (TABLETOP_REDIS_SAFETY=refuse; set warn to serve anyway)"
                  if mode == "refuse" else "serving anyway (TABLETOP_REDIS_SAFETY=warn)")
        return "UNSAFE Redis settings can lose games: " + "; ".join(verdict.problems) + f". {action}"
    if verdict.notes:
        return "Redis settings: " + "; ".join(verdict.notes)
    return "Redis settings are safe: noeviction and persistence on"


# Helpers

async def _settings(client: Any) -> dict[str, dict[str, str]]:
    """``{node: {setting: value}}``; the node is "" for a single server."""
    from tabletop_server.service.store.redis_store import ClusterClient

    if isinstance(client, ClusterClient):
        await client.cluster.initialize()
        out: dict[str, dict[str, str]] = {}
        for node in client.cluster.get_primaries():
            out[node.name] = {}
            for name in SETTINGS:
                reply = await client.cluster.execute_command("CONFIG", "GET", name, target_nodes=node)
                out[node.name].update(_pairs(reply))
        return out
    replies = await client.pipeline(*(("CONFIG", "GET", name) for name in SETTINGS))
    values: dict[str, str] = {}
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
        values.update(_pairs(reply))
    return {"": values}


def _pairs(reply: Any) -> dict[str, str]:
    """CONFIG GET's reply (a flat list, or redis-py's dict) as text."""
    items = reply.items() if isinstance(reply, dict) else zip(reply[::2], reply[1::2], strict=True)
    return {_text(k): _text(v) for k, v in items}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
