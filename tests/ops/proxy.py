"""A loopback TCP proxy in front of a Redis primary whose replication stream can be held.

Everyone (replica, sentinel, service) reaches the primary through the proxy, so the
sentinel sees the replica replicating from the address it monitors (and does not
"fix" it). A connection that sends ``PSYNC`` is a replica's: ``hold()`` keeps what the
primary sends it in the proxy (the replica sees a live but silent link, so ``WAIT``
cannot count it) while every other connection flows; ``close()`` drops what is held with
every connection, as a primary that dies before its last writes reached the replica.
"""

from __future__ import annotations

import socket
import threading

from tests.ops.cluster import free_port


class HoldingProxy:
    """Forwards 127.0.0.1:``port`` to 127.0.0.1:``upstream``; ``hold`` stops upstream-to-client data."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.held = threading.Event()
        self.lock = threading.Lock()
        self.pending: list[tuple[socket.socket, bytes]] = []
        self.sockets: list[socket.socket] = []
        self.replication: set[socket.socket] = set()  # the client sockets that sent PSYNC
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def hold(self) -> None:
        self.held.set()

    def release(self) -> None:
        with self.lock:
            self.held.clear()
            for sink, data in self.pending:
                try:
                    sink.sendall(data)
                except OSError:
                    pass
            self.pending.clear()

    def close(self) -> None:
        """Drop what is held and every connection; refuse new ones."""
        self.closed = True
        with self.lock:
            self.pending.clear()
            for sock in [self.listener, *self.sockets]:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    # Helpers

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
                server = socket.create_connection(("127.0.0.1", self.upstream), timeout=2)
            except OSError:
                if self.closed:
                    return
                continue
            server.settimeout(None)
            with self.lock:
                self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, client), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, None), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, marks: socket.socket | None) -> None:
        """Copy ``source`` to ``sink``; ``marks`` is the client socket when reading the client."""
        try:
            while data := source.recv(65536):
                with self.lock:
                    if marks is not None and b"PSYNC" in data.upper():
                        self.replication.add(marks)
                    if marks is None and sink in self.replication and self.held.is_set():
                        self.pending.append((sink, data))
                        continue
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
