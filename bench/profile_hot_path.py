"""The top of the action hot path's profile (issue 29): where a `SubmitAction`'s server CPU goes.

Starts a private redis-server and ``tabletop serve`` (one worker, the document cache on, as it ships),
drives gRPC ``SubmitAction`` at the given concurrency from this process (``bench/hot_path.py``'s
clients: pre-played TTR games replayed), and samples the server with py-spy (``pip install -e
'.[profile]'``; it needs ptrace: root, or ``kernel.yama.ptrace_scope=0``) while it runs. Prints:

- the functions with the most samples of their own (self time), as a share of all samples;
- the share of samples inside each part of the path (``BUCKETS``: ingress, rules, store, answer, glue),
  counted once per sample at the innermost frame that names one;
- and keeps py-spy's raw collapsed stacks (``--raw``) for a flame graph (``flamegraph.pl``, speedscope).

Usage: ``.venv/bin/python bench/profile_hot_path.py [--seconds 10] [--concurrency 16] [--raw out.txt]``.
The native frames (``--native``) show gRPC's C core and the kernel's side of its threads too; without it
the C core's time appears as the Python frame that called into it, or not at all (its own threads).
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import hot_path, redis_cost
from bench import run as base

# A sample is counted in the bucket of its innermost frame that names one (the interceptors wrap the whole
# handler, so the outermost would put everything in glue). grpc.aio's core is Cython and C, with no Python
# frames: its time (HTTP/2, the completion queue, the poller) shows as the event loop's runner itself.
BUCKETS = (
    ("rules (the ruleset's apply, legal actions, views)", ("/service/games/", "/service/engine/")),
    ("store (Redis round trip, the compare-and-set, the document cache)", ("/service/store/", "redis/")),
    ("answer (views, events, protobuf encoding)", ("/service/api/convert", "/service/api/read_mask",
                                                   "/service/api/wire", "protobuf")),
    # The host's own lines (deciding, the document's JSON, the write path's bookkeeping): without a bucket of their
    # own they counted as glue, the innermost named frame around them being an interceptor's.
    ("host (the servicer and GameHost: decide, the document's JSON, bookkeeping)",
     ("/service/api/host", "/service/api/writes", "/service/api/servicer", "/service/api/table", "/service/api/timers",
      "orjson")),
    ("glue (auth, limits, field rules, telemetry, interceptors)", ("/service/api/auth", "/service/api/limits",
                                                                   "/service/api/wide", "/service/api/players",
                                                                   "/service/api/field_rules", "/service/api/observ",
                                                                   "/service/api/interceptors", "prometheus_client",
                                                                   "opentelemetry")),
    ("gRPC ingress and the event loop (grpc.aio in C under the loop, asyncio)",
     ("grpc/", "asyncio/", "uvloop", "create_server.<locals>.run")),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--native", action="store_true", help="py-spy --native: C and kernel frames too")
    parser.add_argument("--raw", default="", help="keep py-spy's collapsed stacks in this file")
    args = parser.parse_args()
    spy = Path(sys.executable).with_name("py-spy")
    if not spy.exists():
        sys.exit("py-spy is not installed: .venv/bin/pip install -e '.[profile]'")
    redis_url = base._private_redis()
    scripts = base._prepare("ttr-europe", 40)
    raw = Path(args.raw or tempfile.mkstemp(suffix=".txt")[1])
    with hot_path._serve(redis_url, 1, 10_000) as (port, pids):
        record = subprocess.Popen([str(spy), "record", "--pid", str(pids[0]), "--duration", str(int(args.seconds) + 2),
                                   "--rate", "200", "--format", "raw", "--output", str(raw), "--nonblocking",
                                   *(["--native"] if args.native else [])],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)  # py-spy attached
        result = base._load(args.concurrency, args.seconds, hot_path._player((port,), scripts, None, 1), pids,
                            lambda: redis_cost.snapshot(redis.Redis.from_url(redis_url)))
        _, err = record.communicate(timeout=120)
        if record.returncode != 0:
            sys.exit(f"py-spy failed: {err.strip()[-500:]}")
    print(f"SubmitAction c{args.concurrency}: {result['per_s']:.0f} calls/s, server CPU {result['cpu_ms']:.3f} ms "
          f"per call, p50 {result['p50_ms']:.2f} ms; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    _report(raw, args.top)
    if args.raw:
        print(f"\nraw collapsed stacks: {raw}")
    else:
        raw.unlink()


def _report(raw: Path, top: int) -> None:
    own: collections.Counter[str] = collections.Counter()
    buckets: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n, frames = int(count), stack.split(";")
        total += n
        own[_short(frames[-1])] += n
        buckets[next((label for frame in reversed(frames) for label, needles in BUCKETS
                      if any(needle in frame for needle in needles)), "other (threads running only C: gRPC's poller; the standard library)")] += n
    print(f"\n{total} samples. Self time, top {top}:")
    for frame, n in own.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {frame}")
    print("\nBy part of the path (each sample once, at its innermost part):")
    for label, n in buckets.most_common():
        print(f"  {100 * n / total:5.1f}%  {label}")


def _short(frame: str) -> str:
    """``function (file.py:line)`` with the file's path cut to what names it."""
    name, _, where = frame.partition(" (")
    for marker in (f"{ROOT}/", "/site-packages/", "/lib/python3.11/"):
        if marker in where:
            where = where[where.find(marker) + len(marker):]
            break
    return f"{name} ({where}" if where else name


if __name__ == "__main__":
    main()
