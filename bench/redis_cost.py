"""What an action costs Redis (issue 29): round trips, the document cache's hit rate and Redis CPU.

``snapshot(client)`` is a flat dict of counters that ``run._load`` takes before and after a phase and
subtracts: each command's calls (``INFO commandstats``: ``evalsha``, ``hmget``...), its microseconds
inside Redis (``evalsha.usec``: the command's own time, a script's Lua and every command it runs) and
the redis-server process's CPU in microseconds (``redis.cpu_us``: user + system, so the network I/O,
the protocol parsing and the event loop too). ``per_action(counters, actions)`` turns the differences
into figures per action. The process CPU is only the phase's when the bench's redis-server is private
(``run._private_redis``) and on this machine; elsewhere it is None.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

# Commands a script runs are counted as their own in commandstats (Redis 6.2 and 7), so their time is
# also inside the script's: only these top-level commands are summed for "Redis time per action".
TOP_LEVEL = ("evalsha", "eval", "get", "hmget", "xadd", "zadd", "exists", "ping", "info")


def snapshot(client: Any) -> dict[str, int]:
    """Calls and microseconds per command, and the server process's CPU (when it runs here)."""
    stats = client.info("commandstats")
    out: dict[str, int] = {}
    for key, value in stats.items():
        name = key.removeprefix("cmdstat_")
        out[name] = int(value["calls"])
        out[f"{name}.usec"] = int(value["usec"])
    if (cpu := _process_cpu_us(client)) is not None:
        out["redis.cpu_us"] = cpu
    return out


def per_action(counters: dict[str, int], actions: int) -> dict[str, float]:
    """Round trips, reads, cache hit rate and Redis CPU per action from one phase's counter differences.

    A round trip is a script call (``cas.lua``, ``creation.lua``) or a read beyond the one HMGET each of
    those scripts makes itself (Redis counts a script's commands as its own). The hit rate is the share
    of actions written by their first script call on a copy that needed no read: a stale copy costs a
    second script call, a missing one a read. Games created during the phase add about 1 in 100.
    """
    n = max(actions, 1)
    scripts = counters.get("evalsha", 0) + counters.get("eval", 0)
    reads = max(0, counters.get("hmget", 0) - scripts)
    script_us = counters.get("evalsha.usec", 0) + counters.get("eval.usec", 0)
    out = {"round_trips": (scripts + reads) / n, "reads": reads / n,
           "hit_rate": max(0.0, 1 - (scripts + reads - n) / n),
           "script_us_per_call": script_us / max(scripts, 1),
           "script_us": script_us / n,
           "redis_us": sum(counters.get(f"{c}.usec", 0) for c in TOP_LEVEL) / n}
    if "redis.cpu_us" in counters:
        out["redis_cpu_us"] = counters["redis.cpu_us"] / n
    return out


def _process_cpu_us(client: Any) -> int | None:
    """User + system CPU of the redis-server process in microseconds, when it runs on this machine."""
    pid = int(client.info("server").get("process_id", 0))
    stat = Path(f"/proc/{pid}/stat")
    if not pid or not stat.exists():
        return None
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1_000_000 // os.sysconf("SC_CLK_TCK")
