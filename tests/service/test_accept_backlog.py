"""The HTTP listener's accept backlog is as deep as the kernel allows (issue 26, item 4).

Idle and slowloris clients cut at the header timeout reconnect together; with a backlog of 2048 the queue
filled and 2,754 of their connects (and any other client's) timed out. Here nobody accepts: every connect
beyond the backlog waits, so the count of completed handshakes is the backlog the kernel gave the socket.
"""

from __future__ import annotations

import socket
from pathlib import Path

from bench.http_load import raise_fd_limit
from tabletop_server.rest.server import bind

SOMAXCONN = int(Path("/proc/sys/net/core/somaxconn").read_text())


def test_the_accept_backlog_is_the_kernels_maximum() -> None:
    raise_fd_limit()
    wanted = min(SOMAXCONN, 4096)  # past 2048, the old backlog
    listener = bind("127.0.0.1", 0)
    port = listener.getsockname()[1]
    clients: list[socket.socket] = []
    try:
        for _ in range(wanted + 1):  # the listen queue holds backlog + 1 connections on Linux
            client = socket.socket()
            client.setblocking(False)
            client.connect_ex(("127.0.0.1", port))
            clients.append(client)
        established = _established(port)
    finally:
        for client in clients:
            client.close()
        listener.close()
    assert established >= wanted


def _established(port: int) -> int:
    """Client ends of connections to ``port`` whose handshake completed (ESTABLISHED in /proc/net/tcp)."""
    target = f":{port:04X}"
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[2].endswith(target) and fields[3] == "01":
            count += 1
    return count
