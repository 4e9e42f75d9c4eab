"""``tabletop webhooks``: the operator's view of the delivery queues, and redelivery of dead letters.

- ``tabletop webhooks status``: per endpoint, deliveries pending, dead, and how long the most overdue
  one has been due;
- ``tabletop webhooks dead [--endpoint NAME] [--limit N]``: the newest dead deliveries, one JSON line
  each (endpoint, webhook id, type, player, when queued, attempts, last error; not the body);
- ``tabletop webhooks redeliver --endpoint NAME (ID... | --all)``: dead deliveries queued again, due
  now, with a fresh retry horizon and the **same** ``webhook-id`` (a receiver that did get one before
  sees a duplicate it can recognise).

Like ``tabletop backup``, it runs beside the service against the same Redis (``--redis-url``, else
``TABLETOP_REDIS_URL``), as an operator with access to it: no RPC of the game API can reach it.
Endpoints come from ``TABLETOP_WEBHOOKS_FILE`` when ``--endpoint`` is not given.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from tabletop_server.service.config import Config
from tabletop_server.service.store.redis_store import connect
from tabletop_server.service.webhooks import endpoints
from tabletop_server.service.webhooks.queue import Queue

MAX_IDS = 10_000


def add_command(sub: Any) -> None:
    """The ``webhooks`` subcommand and its actions."""
    p = sub.add_parser("webhooks", help="webhook delivery queues: status, dead letters, redelivery")
    actions = p.add_subparsers(dest="action", required=True)
    for name, text in (("status", "pending and dead deliveries per endpoint"),
                       ("dead", "list dead deliveries (JSON lines, newest first)"),
                       ("redeliver", "queue dead deliveries again (same webhook-id)")):
        a = actions.add_parser(name, help=text)
        a.add_argument("--redis-url", help="default: TABLETOP_REDIS_URL, else the embedded Redis's data dir")
        a.add_argument("--endpoint", action="append", default=[], metavar="NAME",
                       help="this endpoint (repeat for more); default: every endpoint of TABLETOP_WEBHOOKS_FILE")
        if name == "dead":
            a.add_argument("--limit", type=int, default=100, help="at most this many per endpoint (default 100)")
        if name == "redeliver":
            a.add_argument("ids", nargs="*", metavar="ID", help="webhook ids (msg_...) from `tabletop webhooks dead`")
            a.add_argument("--all", action="store_true", help="every dead delivery of the endpoint(s)")


def run(args: argparse.Namespace, config: Config, redis_url: str) -> int:
    """Run one action; its output on stdout, a summary on stderr. 2 for a usage error."""
    names = args.endpoint or [e.name for e in endpoints.configured(config)]
    if not names or not all(endpoints.NAME.fullmatch(n) for n in names):
        print("name the endpoint (--endpoint NAME) or set TABLETOP_WEBHOOKS_FILE", file=sys.stderr)
        return 2
    if args.action == "redeliver" and bool(args.ids) == bool(args.all):
        print("give webhook ids or --all (not both)", file=sys.stderr)
        return 2
    return asyncio.run(_run(args, names, redis_url, config.redis_tls_ca_file))


# Helpers

async def _run(args: argparse.Namespace, names: list[str], redis_url: str, ca_file: str) -> int:
    client = connect(redis_url, ca_file=ca_file)
    try:
        queues = [Queue(client, name) for name in names]
        if args.action == "status":
            for queue in queues:
                pending, dead, oldest = await queue.counts(time.time())
                print(json.dumps({"endpoint": queue.name, "pending": pending, "dead": dead,
                                  "oldest_due_seconds": round(oldest, 3)}))
            return 0
        if args.action == "dead":
            for queue in queues:
                for m in await queue.dead_letters(max(1, min(args.limit, MAX_IDS))):
                    print(json.dumps({"endpoint": queue.name, "id": m.id, "type": m.type, "player": m.player,
                                      "queued": m.queued, "attempts": m.attempts, "error": m.error}))
            return 0
        revived = 0
        for queue in queues:
            ids = args.ids or [m.id for m in await queue.dead_letters(MAX_IDS)]
            for message_id in ids:
                revived += await queue.revive(message_id, time.time())
        asked = len(args.ids) * len(queues) if args.ids else revived
        print(f"queued {revived} dead deliveries again" + (f"; {asked - revived} were not dead"
                                                           if asked > revived else ""), file=sys.stderr)
        return 0 if revived == asked else 3
    finally:
        await client.close()
