"""``bench/run.py``'s one table and its ratios: every figure of a phase on one line, then each target's ratio.

Columns: calls per second, p50 and p99 of a call as the client saw it, server CPU per call (the processes
serving it), the load generator's own CPU per call (this Python process: on a 2-core machine it takes
a share of the cores the servers could use), and for SubmitAction the Redis side (``redis_cost.py``):
round trips per action, the document cache's hit rate, the redis-server process's CPU per action and the
compare-and-set script's time per action inside Redis (INFO commandstats).
"""

from __future__ import annotations

from typing import Any

CONCURRENCY = (1, 16, 64)


def show(r: dict[str, Any]) -> None:
    print("\n== Platform benchmark (client and servers on this machine) ==")
    print(f"{'what':32} {'calls/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'srv CPU ms':>10} {'client ms':>9} "
          f"{'RT/act':>6} {'hits':>5} {'Redis us':>8} {'CAS us':>6}")
    for key, v in r.items():
        if key in ("stored", "_load"):
            continue
        redis_side = (f" {v['round_trips']:6.2f} {v['hit_rate']:5.2f} {v.get('redis_cpu_us', float('nan')):8.1f} "
                      f"{v['script_us']:6.1f}" if "round_trips" in v else "")
        client = f"{v['client_cpu_ms']:9.3f}" if "client_cpu_ms" in v else f"{'':9}"
        print(f"{key:32} {v['per_s']:8.0f} {v['p50_ms']:7.2f} {v['p99_ms']:7.2f} {v['cpu_ms']:10.3f} {client}{redis_side}")
    print("srv CPU: the serving processes' CPU per call; client: this load generator's; RT/act: Redis round trips "
          "per action; hits: actions written by their first compare-and-set on this process's copy, unread; "
          "Redis us: the redis-server process's CPU per action; CAS us: the script's own time per action "
          "(INFO commandstats). The hit rate over 1-3 replicas and with game affinity: bench/hot_path.py")
    if "_load" in r:
        print(f"load average at the end: {r['_load']:.1f}")
    print("\n== Ratios ==")
    levels = [c for c in CONCURRENCY if f"SubmitAction c{c}" in r]
    for c in levels:
        sub, floor, echo = r[f"SubmitAction c{c}"], r[f"bare GET+EVALSHA c{c}"], r[f"echo c{c}"]
        print(f"c{c:<3} server CPU per SubmitAction / bare GET+EVALSHA = {sub['cpu_ms'] / floor['cpu_ms']:.2f} "
              f"(target <= 1.5), / echo = {sub['cpu_ms'] / echo['cpu_ms']:.2f}; Redis round trips per action "
              f"{sub['round_trips']:.2f} (target <= 1)")
    _workers(r)
    for c in levels:
        if f"REST :act c{c}" in r:
            _rest(r, c)
    for c in levels:
        sub = r[f"SubmitAction c{c}"]
        print(f"c{c:<3} server CPU per call on this stack: echo {r[f'echo c{c}']['cpu_ms']:.3f} ms, bare GET+EVALSHA "
              f"{r[f'bare GET+EVALSHA c{c}']['cpu_ms']:.3f} ms, SubmitAction {sub['cpu_ms']:.3f} ms")
        if (peer := r.get(f"boardgame.io move c{c}")) is not None:
            print(f"c{c:<3} against boardgame.io 0.50.2 (in memory, not durable, a one-move game), live: move p50 "
                  f"{sub['p50_ms']:.2f} / {peer['p50_ms']:.2f} ms = {sub['p50_ms'] / max(peer['p50_ms'], 1e-9):.2f}"
                  f"{' (target <= 1)' if c == 1 else ''}, moves/s {sub['per_s'] / max(peer['per_s'], 1e-9):.2f}x, "
                  f"server CPU per move {sub['cpu_ms']:.3f} / {peer['cpu_ms']:.3f} ms "
                  f"= {sub['cpu_ms'] / max(peer['cpu_ms'], 1e-9):.2f} (its match setup {peer['setup_ms']:.0f} ms, apart)")
    if (s := r.get("stored")) is not None:
        print(f"stored bytes per game: document {s.get('doc_mid', 0):.0f} B mid-game, {s['doc_final']:.0f} B at the "
              f"end; Redis memory {s['hash_mem']:.0f} B (hash) + {s['log_mem']:.0f} B (log of {s['actions']:.0f} "
              "actions)")


def _workers(r: dict[str, Any]) -> None:
    """N workers against one, each client thread on its own connection, and the cores the client took."""
    rows = [(k, v) for k, v in r.items() if " worker" in k and k.startswith("SubmitAction")]
    if len(rows) != 2:
        return
    (_, one), (label, several) = rows
    cores = [v["client_cpu_ms"] * v["per_s"] / 1000 for v in (one, several)]
    print(f"{label.removeprefix('SubmitAction ')} / 1 worker: calls/s {several['per_s'] / one['per_s']:.2f}x "
          f"(target >= 1.75), server CPU per call {several['cpu_ms'] / one['cpu_ms']:.2f}x; cores used by the servers "
          f"{one['cpu_ms'] * one['per_s'] / 1000:.2f} and {several['cpu_ms'] * several['per_s'] / 1000:.2f}, by this "
          f"load generator {cores[0]:.2f} and {cores[1]:.2f}")


def _rest(r: dict[str, Any], c: int) -> None:
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
