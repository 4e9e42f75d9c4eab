"""The floor to compare against: a bare grpcio server on the same stack as the service.

``/bench.Bare/Echo`` returns its request; ``/bench.Bare/Act`` does one Redis GET and
one EVALSHA (the minimum for "read the game, write it atomically"). Same thread pool
size and Redis client settings as ``service.api.server``.
"""

from __future__ import annotations

import argparse
import threading
from concurrent import futures

import grpc

from service.store.redis_store import connect

SCRIPT = "local v = redis.call('GET', KEYS[1]) or '0'; redis.call('SET', KEYS[1], ARGV[1]); return v"


def serve(port: int, redis_url: str, workers: int = 64) -> grpc.Server:
    client = connect(redis_url)
    script = client.register_script(SCRIPT)
    payload = b"x" * 3000  # about a game document

    def echo(request: bytes, context: grpc.ServicerContext) -> bytes:
        return request

    def act(request: bytes, context: grpc.ServicerContext) -> bytes:
        key = "{bench:" + str(threading.get_ident() % 64) + "}"
        client.get(key)
        script(keys=[key], args=[payload])
        return request

    handlers = {"Echo": grpc.unary_unary_rpc_method_handler(echo),
                "Act": grpc.unary_unary_rpc_method_handler(act)}
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Bare", handlers),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis", required=True)
    args = parser.parse_args()
    serve(args.port, args.redis).wait_for_termination()
