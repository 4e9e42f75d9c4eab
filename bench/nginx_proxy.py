"""Debian's nginx in front of gRPC replicas, routing as the chart's ``grpc.ingress.gameAffinity`` asks
ingress-nginx to (deploy/README.md, "Game-affinity routing"): the annotation
``upstream-hash-by: "$http_x_tabletop_game"`` is, in nginx's own terms, ``hash $http_x_tabletop_game
consistent;`` in the upstream, with ``grpc_pass`` to it. Used by ``bench/hot_path.py`` and
``tests/ops/test_game_affinity.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import grpc

from bench.serve_proc import free_port

# The chart's key (grpc.ingress.gameAffinityKey's default), and the one deploy/README.md has ingress-nginx
# define in its http-snippet so that a call without the header never hashes an empty key: (key, snippet).
CHART_KEY = ("$http_x_tabletop_game", "")
ACCESS_LOG = "access.log"
NEVER_EMPTY_KEY = ("$tabletop_game_route",
                   'map $http_x_tabletop_game $tabletop_game_route { "" $request_id; default $http_x_tabletop_game; }')


def nginx_config(prefix: Path, port: int, replicas: list[int], key: tuple[str, str] = CHART_KEY) -> str:
    """The configuration: nginx on ``port`` hashing ``key`` (the hash key, and the http-level snippet that
    defines it) over the ``replicas``' gRPC ports, its files under ``prefix``; ``ACCESS_LOG`` there lists
    each call's method and game header (``-`` for none)."""
    servers = "\n".join(f"    server 127.0.0.1:{replica};" for replica in replicas)
    temp = " ".join(f"{kind}_temp_path {prefix / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""
daemon off;
worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} warn;
events {{ worker_connections 1024; }}
http {{
  log_format routing '$request_uri $http_x_tabletop_game';
  access_log {prefix / ACCESS_LOG} routing;
  {temp}
  {key[1]}
  upstream tabletop {{
    hash {key[0]} consistent;
{servers}
    keepalive 32;
  }}
  server {{
    listen 127.0.0.1:{port} http2;
    location / {{ grpc_pass grpc://tabletop; }}
  }}
}}
"""


class Nginx:
    """nginx as a context: ``with Nginx(ports) as (target, pid)``; its files in a folder of its own."""

    def __init__(self, replicas: list[int], key: tuple[str, str] = CHART_KEY, prefix: Path | None = None) -> None:
        nginx = shutil.which("nginx")
        if nginx is None:
            raise FileNotFoundError("nginx is not installed: `apt-get install -y nginx` (Debian)")
        self._temp: tempfile.TemporaryDirectory[str] | None = None
        if prefix is None:
            self._temp = tempfile.TemporaryDirectory(prefix="tabletop-nginx-")
            prefix = Path(self._temp.name)
        self.prefix = prefix
        self.port = free_port()
        config = self.prefix / "nginx.conf"
        config.write_text(nginx_config(self.prefix, self.port, replicas, key))
        self.proc = subprocess.Popen([nginx, "-p", str(self.prefix), "-e", str(self.prefix / "error.log"),
                                      "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    def __enter__(self) -> tuple[str, int]:
        target = f"127.0.0.1:{self.port}"
        try:
            with grpc.insecure_channel(target) as channel:
                grpc.channel_ready_future(channel).result(timeout=30)
        except BaseException:
            self.stop()
            raise
        return target, self.proc.pid

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        if self._temp is not None:
            self._temp.cleanup()
