"""Backups, restored into fresh real redis-server processes: the games play on.

Three ways, each checked by an action accepted after the restore at the next version
(``expected_version``), against Debian's redis-server:

- Redis's own: ``BGSAVE`` and a copy of the RDB file; a copy of the append-only directory;
- ``tabletop backup`` / ``tabletop restore`` (service/store/backup.py): every game or one,
  with ``--replace``, and a retry with a request id from before the backup still answered
  from its remembered response (nothing applied twice).
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.store import backup
from tests.conftest import start_grpc
from tests.helpers import bearer, create_game, deciding_seat, play
from tests.ops.test_redis_auth_tls import REDIS_SERVER, Server

pytestmark = pytest.mark.skipif(not Path(REDIS_SERVER).exists(), reason="needs a redis-server binary")

ROOT = Path(__file__).resolve().parents[2]
Games = list[tuple[str, dict[int, str], int]]  # (name, tokens, version)


def _played(redis: Server, count: int = 3) -> Games:
    """``count`` games with a few moves each, played through a real gRPC server on ``redis``."""
    server = start_grpc(f"redis://127.0.0.1:{redis.port}")
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            games = []
            for seed in range(count):
                game, tokens = create_game(stub, seats=2, seed=seed)
                applied = play(stub, game.name, tokens, 3 + seed, random.Random(seed))
                games.append((game.name, tokens, 1 + applied))
            return games
    finally:
        server.running.stop(0)


def _plays_on(redis: Server, games: Games) -> None:
    """Every game is there at its version and accepts its next action at exactly the next one."""
    server = start_grpc(f"redis://127.0.0.1:{redis.port}")
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            for name, tokens, version in games:
                assert stub.GetGame(svc.GetGameRequest(name=name)).game.version == version
                seat, actions = deciding_seat(stub, name, tokens)
                reply = stub.SubmitAction(svc.SubmitActionRequest(name=name, action=actions[0],
                                                                  expected_version=version),
                                          metadata=bearer(tokens[seat]))
                assert reply.game.version == version + 1
    finally:
        server.running.stop(0)


def test_bgsave_rdb_copy_restores_into_a_fresh_redis() -> None:
    source = Server("--dbfilename", "dump.rdb")
    try:
        games = _played(source)
        source.admin.bgsave()
        deadline = time.monotonic() + 30
        while (persistence := source.admin.info("persistence"))["rdb_bgsave_in_progress"] or \
                persistence["rdb_changes_since_last_save"]:
            assert time.monotonic() < deadline, persistence
            time.sleep(0.05)
        assert persistence["rdb_last_bgsave_status"] == "ok"
        target_dir = tempfile.mkdtemp(prefix="tabletop-restore-")
        shutil.copy(Path(source.dir) / "dump.rdb", target_dir)
    finally:
        source.stop()
    target = Server("--dir", target_dir, "--dbfilename", "dump.rdb")
    try:
        _plays_on(target, games)
    finally:
        target.stop()


def test_append_only_directory_copy_restores_into_a_fresh_redis() -> None:
    source = Server("--appendonly", "yes")
    try:
        games = _played(source)
        target_dir = tempfile.mkdtemp(prefix="tabletop-restore-")
        shutil.copytree(Path(source.dir) / "appendonlydir", Path(target_dir) / "appendonlydir")
    finally:
        source.stop()
    target = Server("--dir", target_dir, "--appendonly", "yes")
    try:
        _plays_on(target, games)
    finally:
        target.stop()


def test_tabletop_backup_and_restore_of_every_game(tmp_path: Path) -> None:
    source, target = Server(), Server()
    try:
        games = _played(source)
        name, tokens, version = games[0]
        retry = _submit_with_id(source, name, tokens)  # a move whose client may retry after the restore
        games[0] = (name, tokens, version + 1)
        with (tmp_path / "all.jsonl").open("w") as out:
            keys, count = backup.backup(source.admin, out)
        assert count == 3 and keys >= 3 * 2 + 2  # hash + log per game, the remembered response and its index
        with (tmp_path / "all.jsonl").open() as source_file:
            restored, skipped = backup.restore(target.admin, source_file)
        assert len(restored) == 3 and skipped == []
        assert 0 < target.admin.pttl(f"{{g:{name.removeprefix('games/')}}}") <= 7 * 24 * 3600 * 1000
        assert _replay(target, retry) == version + 1  # answered from the remembered response, not applied twice
        _plays_on(target, games)
    finally:
        source.stop()
        target.stop()


def test_restore_one_game_and_replace(tmp_path: Path) -> None:
    source, target = Server(), Server()
    try:
        games = _played(source)
        subprocess.run([sys.executable, "-m", "tabletop_server.service", "backup", "--redis-url",
                        f"redis://127.0.0.1:{source.port}", str(tmp_path / "b.jsonl")], cwd=ROOT, check=True)
        name = games[1][0]
        restore = [sys.executable, "-m", "tabletop_server.service", "restore", "--redis-url", f"redis://127.0.0.1:{target.port}",
                   "--game", name, str(tmp_path / "b.jsonl")]
        subprocess.run(restore, cwd=ROOT, check=True)
        assert sorted(k for k in target.admin.keys("{g:*}")) == [f"{{g:{name.removeprefix('games/')}}}".encode()]
        _plays_on(target, [games[1]])  # now one version ahead of the backup
        again = subprocess.run(restore, check=False, cwd=ROOT, capture_output=True, text=True)
        assert again.returncode == 3 and "skipped 1" in again.stderr  # an existing game is left alone
        subprocess.run([*restore, "--replace"], cwd=ROOT, check=True)
        _plays_on(target, [games[1]])  # back at the backup's version, and on again
    finally:
        source.stop()
        target.stop()


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path: Path) -> None:
    (tmp_path / "x").write_text('{"hello": 1}\n')
    with (tmp_path / "x").open() as handle, pytest.raises(SystemExit):
        backup.restore(None, handle)


# Helpers

def _submit_with_id(redis: Server, name: str, tokens: dict[int, str]) -> tuple[str, svc.SubmitActionRequest, str]:
    server = start_grpc(f"redis://127.0.0.1:{redis.port}")
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            seat, actions = deciding_seat(stub, name, tokens)
            request = svc.SubmitActionRequest(name=name, action=actions[0], request_id=uuid.uuid4().hex)
            stub.SubmitAction(request, metadata=bearer(tokens[seat]))
            return name, request, tokens[seat]
    finally:
        server.running.stop(0)


def _replay(redis: Server, retry: tuple[str, svc.SubmitActionRequest, str]) -> int:
    server = start_grpc(f"redis://127.0.0.1:{redis.port}")
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            _, request, token = retry
            return int(stub.SubmitAction(request, metadata=bearer(token)).game.version)
    finally:
        server.running.stop(0)
