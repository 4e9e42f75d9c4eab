"""The floor to compare against: a bare server on the same stack as the service.

``/bench.Bare/Echo`` returns its request; ``/bench.Bare/Act`` does one Redis GET and
one EVALSHA (the minimum for "read the game, write it atomically"). Same stack as
``service.api.server``: grpc.aio on the same event loop (uvloop when installed) and the
same Redis client (``service.store.redis_store.connect``), with no interceptors.
"""

from __future__ import annotations

import argparse

import grpc

from tabletop_server.service.api.server import _new_loop
from tabletop_server.service.store import resp
from tabletop_server.service.store.redis_store import connect

SCRIPT = resp.Script("local v = redis.call('GET', KEYS[1]) or '0'; redis.call('SET', KEYS[1], ARGV[1]); return v")
PAYLOAD = b"x" * 3000  # about a game document


async def serve(port: int, redis_url: str) -> None:
    client = connect(redis_url)
    keys = [f"{{bench:{i}}}" for i in range(64)]
    turn = iter(range(1 << 62))

    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    async def act(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        key = keys[next(turn) % 64]
        await client.execute("GET", key)
        await client.evalsha(SCRIPT, [key], [PAYLOAD])
        return request

    handlers = {"Echo": grpc.unary_unary_rpc_method_handler(echo),
                "Act": grpc.unary_unary_rpc_method_handler(act)}
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Bare", handlers),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis", required=True)
    args = parser.parse_args()
    _new_loop().run_until_complete(serve(args.port, args.redis))
