"""``tabletop verify``: check a finished game's deal from its public record, without credentials.

    tabletop verify games/<id> [--target host:port] [--tls-ca ca.pem] [--save record.json]
    tabletop verify --file record.json

The record is read from a server (GetGame and every page of GetGameLog, no token: what any
spectator may read once the game is over) or from a file ``--save`` wrote; ``verify.verify`` does
the checking (docs/fair-play.md). Exit status 0: the deal is proven; 1: it is not (the reason is
printed); 2: the record could not be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import grpc
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.api.verify import PublicRecord, VerificationFailed, verify

PAGE = 1000


def add_command(sub: Any) -> None:
    """The ``verify`` subcommand."""
    p = sub.add_parser("verify", help="check a finished game's deal against its commitment (no credentials)")
    p.add_argument("name", nargs="?", help="the game, games/<id> (read from --target)")
    p.add_argument("--target", default="localhost:50051", help="the gRPC service (default localhost:50051)")
    p.add_argument("--tls-ca", help="PEM CA that verifies a TLS target (else plaintext)")
    p.add_argument("--file", help="verify a record saved with --save instead of asking a server")
    p.add_argument("--save", help="also write the record read from the server to this file (JSON)")


def run(args: argparse.Namespace) -> int:
    """Read the record, verify it, print the verdict."""
    try:
        record = _read(args)
    except (OSError, ValueError, KeyError, grpc.RpcError) as exc:
        print(f"tabletop verify: cannot read the game's record: {_describe(exc)}", file=sys.stderr)
        return 2
    if args.save:
        Path(args.save).write_text(json.dumps(record.to_json(), indent=1))
    try:
        done = verify(record)
    except VerificationFailed as exc:
        print(f"NOT VERIFIED {record.game.name}: {exc}")
        return 1
    print(f"VERIFIED {record.game.name}: the seed opens the commitment {record.game.seed_commitment}; "
          f"{done.actions} actions replayed under {done.rules_version}, {done.events} events and the final "
          "result are exactly what the committed seed deals.")
    return 0


def fetch(channel: grpc.Channel, name: str) -> PublicRecord:
    """A finished game's public record from the service (no credentials)."""
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    game = stub.GetGame(svc.GetGameRequest(name=name), timeout=30)
    pages, token = [], ""
    while True:
        page = stub.GetGameLog(svc.GetGameLogRequest(name=name, page_size=PAGE, page_token=token), timeout=30)
        pages.append(page)
        token = page.next_page_token
        if not token:
            return PublicRecord.from_responses(game, pages)


# Helpers

def _read(args: argparse.Namespace) -> PublicRecord:
    if args.file:
        return PublicRecord.from_json(json.loads(Path(args.file).read_text()))
    if not args.name:
        raise ValueError("give a game name (games/<id>) or --file")
    name = args.name if args.name.startswith("games/") else f"games/{args.name}"
    if args.tls_ca:
        credentials = grpc.ssl_channel_credentials(Path(args.tls_ca).read_bytes())
        with grpc.secure_channel(args.target, credentials) as channel:
            return fetch(channel, name)
    with grpc.insecure_channel(args.target) as channel:
        return fetch(channel, name)


def _describe(exc: Exception) -> str:
    if isinstance(exc, grpc.RpcError):
        return f"{exc.code().name}: {exc.details()}"
    return str(exc)
