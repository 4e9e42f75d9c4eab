"""tabletop.v1.GameService over Connect and gRPC-Web, on the REST facade's HTTP server (issue 13).

Browsers cannot speak gRPC (``fetch`` gives no HTTP/2 trailers), so the contract is also
served by connectrpc (connect-py) at ``/tabletop.v1.GameService/<Method>``: Connect unary
(``application/json``, ``application/proto``), Connect streaming for WatchGame
(``application/connect+json``, ``application/connect+proto``) and gRPC-Web
(``application/grpc-web``, ``+proto``, ``+json``). Native gRPC (``application/grpc``) needs
HTTP/2 and trailers, which uvicorn has not; it is refused here and served on the gRPC port.

The endpoints are a gRPC client like the rest of the facade (DESIGN 1 and 11). They are
built from the service descriptor, never by hand per method, and forward each decoded
message over the facade's channel (``grpc.aio``; in ``tabletop serve`` the service's own handlers
in process, ``rest.local``, streams excepted) with the forwarded headers as metadata
(``rest.handlers.metadata``: ``authorization``, ``x-api-key``, ``x-request-id``,
``x-forwarded-for``, the proxy secret) and the facade's deadline, or the client's
(``Connect-Timeout-Ms``, ``Grpc-Timeout``) when shorter. A failed call goes through the
facade's one mapping, ``rest.errors.from_rpc_error``, and leaves as Connect's error with the
same code, message and every detail (ErrorInfo first), so no rule, check or reason lives
here. Bad input the facade refuses itself gets the REST facade's errors and reasons: JSON
through ``rest.transcode.decode_json`` (MALFORMED_JSON, UNKNOWN_FIELD, ...), a body over
TABLETOP_MAX_REQUEST_BYTES through ``rest.handlers.too_large`` (BODY_TOO_LARGE).

Every call is counted in ``tabletop_connect_requests_total{method,protocol,code}`` and
timed in ``tabletop_connect_request_duration_seconds{method}``; unary calls count as in
flight for the SIGTERM drain, and watches count against the SSE watch caps
(``rest.watch.Watches``), ending cleanly at shutdown as SSE streams do (clients watch again
from their last version).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from connectrpc._protocol import ConnectWireError  # connectrpc's own printer of the Connect error JSON
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.interceptor import MetadataInterceptor
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import message_factory
from google.protobuf.any_pb2 import Any as AnyPb
from google.protobuf.message import DecodeError, Message
from protobuf.wkt import Any as WireAny

from tabletop_server.rest.aio import rpc_error
from tabletop_server.rest.errors import ApiError, Reason, bad_request, from_rpc_error, local_error
from tabletop_server.rest.handlers import metadata, too_large
from tabletop_server.rest.routes import SERVICE
from tabletop_server.rest.transcode import decode_json, encode_response
from tabletop_server.rest.watch import Watches

PREFIX = f"/{SERVICE.full_name}/"
Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]
# grpc spells one code CANCELLED, Connect CANCELED; every other name is the same.
CODES: dict[grpc.StatusCode, Code] = {code: Code[code.name.replace("CANCELLED", "CANCELED")]
                                      for code in grpc.StatusCode if code != grpc.StatusCode.OK}


class ConnectApp:
    """The ASGI app of the Connect and gRPC-Web routes (see the module docstring)."""

    def __init__(self, parts: Any, watches: Watches, metrics: Any = None, in_flight: Any = None) -> None:
        self.parts = parts
        self.watches = watches
        self.max_body_bytes: int = parts.max_body_bytes
        self.deadline: float = parts.deadline_seconds
        self.rpcs: dict[str, Any] = {}
        self.streams: set[Any] = set()  # open upstream WatchGame calls
        self.closing = False
        self.app = _Application(service=self, endpoints=_endpoints, interceptors=[_Observed(metrics, in_flight)],
                                read_max_bytes=self.max_body_bytes, codecs=[_JsonCodec(), _ProtoCodec()])

    @property
    def open(self) -> int:
        """Connect and gRPC-Web watches open now."""
        return len(self.streams)

    def start(self, channel: Any) -> None:
        """One multi-callable per method on the facade's ``grpc.aio`` channel."""
        for method in SERVICE.methods:
            request, response = _message_class(method.input_type), _message_class(method.output_type)
            call = channel.unary_stream if method.server_streaming else channel.unary_unary
            self.rpcs[method.name] = call(f"{PREFIX}{method.name}", request_serializer=request.SerializeToString,
                                          response_deserializer=response.FromString)

    def end_watches(self) -> None:
        """End every watch (at shutdown): each stream closes cleanly, as SSE streams do."""
        self.closing = True
        for call in list(self.streams):
            call.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
        cors = self.parts.cors
        allowed = cors.headers_for(headers.get(b"origin", b"").decode("latin-1")) if cors is not None else []
        extra = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in allowed]

        async def send_with_cors(event: dict[str, Any]) -> None:
            if event["type"] == "http.response.start" and extra:
                event = {**event, "headers": [*event.get("headers", []), *extra]}
            await send(event)

        if content_type.startswith("application/grpc") and not content_type.startswith("application/grpc-web"):
            await _refuse_grpc(send_with_cors)
            return
        await self.app(scope, self._bounded(headers, receive), send_with_cors)

    # Endpoints

    def unary(self, name: str) -> Callable[[Message, RequestContext[Any, Any]], Any]:
        """The endpoint of one unary method: the same call over the gRPC channel."""
        async def call(request: Message, ctx: RequestContext[Any, Any]) -> Message:
            call_metadata, timeout = self._call_options(ctx, self.deadline)
            try:
                response: Message = await self.rpcs[name](request, timeout=timeout, metadata=call_metadata)
            except grpc.RpcError as error:
                raise connect_error(from_rpc_error(rpc_error(error))) from None
            return response
        return call

    def server_stream(self, name: str) -> Callable[[Message, RequestContext[Any, Any]], AsyncIterator[Message]]:
        """The endpoint of WatchGame: the upstream stream's messages, under the facade's watch caps."""
        async def watch(request: Message, ctx: RequestContext[Any, Any]) -> AsyncIterator[Message]:
            call_metadata, timeout = self._call_options(ctx, None)  # a watch lasts until the client leaves
            token = ctx.request_headers.get("authorization", "")
            address = _client_ip(ctx)
            try:
                self.watches.admit(token, address)
            except ApiError as error:
                raise connect_error(error) from None
            call = self.rpcs[name](request, timeout=timeout, metadata=call_metadata)
            self.streams.add(call)
            try:
                async for response in call:
                    yield response
            except grpc.RpcError as error:
                raise connect_error(from_rpc_error(rpc_error(error))) from None
            except asyncio.CancelledError:
                # end_watches cancelled the upstream call: end the stream cleanly. A cancellation
                # of this task (the client left) propagates.
                task = asyncio.current_task()
                if not self.closing or (task is not None and task.cancelling()):
                    raise
            finally:
                self.streams.discard(call)
                call.cancel()
                self.watches.release(token, address)
        return watch

    # Helpers

    def _call_options(self, ctx: RequestContext[Any, Any], deadline: float | None) -> tuple[Any, float | None]:
        """The call's metadata and deadline; echoes ``x-request-id`` in the response headers."""
        environ = {"HTTP_" + key.upper().replace("-", "_"): value for key, value in ctx.request_headers.items()}
        if (address := _client_ip(ctx)):
            environ["REMOTE_ADDR"] = address
        try:
            call_metadata = metadata(environ, self.parts.proxy_secret)
        except ApiError as error:
            raise connect_error(error) from None
        if (request_id := ctx.request_headers.get("x-request-id")) is not None:
            ctx.response_headers["x-request-id"] = request_id
        remaining = ctx.timeout_ms
        if remaining is not None:
            deadline = min(deadline, remaining / 1000) if deadline is not None else remaining / 1000
        return call_metadata, deadline

    def _bounded(self, headers: dict[bytes, bytes], receive: Receive) -> Receive:
        """``receive`` refusing a body over the limit with the REST facade's BODY_TOO_LARGE."""
        limit = self.max_body_bytes
        declared = headers.get(b"content-length", b"")
        received = 0

        async def bounded() -> dict[str, Any]:
            nonlocal received
            if declared.isdigit() and int(declared) > limit:
                raise connect_error(too_large(limit))
            event: dict[str, Any] = await receive()
            if event["type"] == "http.request":
                received += len(event.get("body", b""))
                if received > limit:
                    raise connect_error(too_large(limit))
            return event
        return bounded


def connect_error(error: ApiError) -> ConnectError:
    """The facade's error as Connect's: the same code, message and details (each as an Any)."""
    return ConnectError(CODES.get(error.code, Code.UNKNOWN), error.message, [_detail(d) for d in error.details])


class _Application(ConnectASGIApplication[ConnectApp]):
    @property
    def path(self) -> str:
        return PREFIX.rstrip("/")


class _Observed(MetadataInterceptor[float]):
    """Metrics and the in-flight count of every call that reached an endpoint's method."""

    def __init__(self, metrics: Any, in_flight: Any) -> None:
        self.metrics, self.in_flight = metrics, in_flight

    async def on_start(self, ctx: RequestContext[Any, Any]) -> float:
        if self.in_flight is not None and ctx.method.stream_type is StreamType.UNARY:
            self.in_flight.__enter__()
        return time.perf_counter()

    async def on_end(self, started: float, ctx: RequestContext[Any, Any], error: Exception | None, /) -> None:
        if self.in_flight is not None and ctx.method.stream_type is StreamType.UNARY:
            self.in_flight.__exit__()
        if self.metrics is None:
            return
        code = "ok" if error is None else error.code.value if isinstance(error, ConnectError) else "unknown"
        protocol = _protocol(ctx.request_headers.get("content-type", ""))
        self.metrics.connect_requests.labels(ctx.method.name, protocol, code).inc()
        self.metrics.connect_seconds.labels(ctx.method.name).observe(time.perf_counter() - started)


class _JsonCodec:
    """Proto3 JSON with the REST facade's parser (unknown fields refused) and printer."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return encode_response(message)

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        try:
            return decode_json(message_class, bytes(data))
        except ApiError as error:
            raise connect_error(error) from None


class _ProtoCodec:
    """The protobuf binary format; a body that does not parse is MALFORMED_PROTOBUF."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        try:
            return message_class.FromString(bytes(data))
        except DecodeError as error:
            message = f"the body is not a {message_class.DESCRIPTOR.full_name} in protobuf binary: {error}"
            raise connect_error(bad_request(Reason.MALFORMED_PROTOBUF, message)) from None


def _endpoints(app: ConnectApp) -> dict[str, Any]:
    """Path -> endpoint for every method of the service (connectrpc's generated code does this per method)."""
    endpoints: dict[str, Any] = {}
    for method in SERVICE.methods:
        info: MethodInfo[Any, Any] = MethodInfo(
            name=method.name, service_name=SERVICE.full_name, input=_message_class(method.input_type),
            output=_message_class(method.output_type), idempotency_level=IdempotencyLevel.UNKNOWN,
            stream_type=StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY)
        path = f"{PREFIX}{method.name}"
        endpoints[path] = (Endpoint.server_stream(info, app.server_stream(method.name)) if method.server_streaming
                           else Endpoint.unary(info, app.unary(method.name)))
    return endpoints


def _message_class(descriptor: Any) -> type[Message]:
    return message_factory.GetMessageClass(descriptor)


def _detail(detail: Message) -> ErrorDetail:
    packed = detail
    if not isinstance(detail, AnyPb):
        packed = AnyPb()
        packed.Pack(detail)
    assert isinstance(packed, AnyPb)
    return ErrorDetail(WireAny(type_url=packed.type_url, value=packed.value))


def _client_ip(ctx: RequestContext[Any, Any]) -> str:
    """The client's address without its port ("ip:port", IPv6 too)."""
    return (ctx.client_address or "").rpartition(":")[0]


def _protocol(content_type: str) -> str:
    """The metrics label of a request's protocol, from its content type."""
    mime = content_type.split(";", 1)[0].strip().lower()
    if mime.startswith("application/grpc-web"):
        return "grpc-web"
    return "connect-stream" if mime.startswith("application/connect+") else "connect"


async def _refuse_grpc(send: Send) -> None:
    """Native gRPC on this HTTP/1.1 port: a Connect-style 415 that names the gRPC port."""
    message = ("gRPC needs HTTP/2: call the gRPC port; this port serves Connect "
               "(application/json, application/proto) and gRPC-Web (application/grpc-web)")
    error = connect_error(local_error(415, grpc.StatusCode.UNIMPLEMENTED, Reason.UNSUPPORTED_PROTOCOL, message))
    body = _wire_json(error)
    await send({"type": "http.response.start", "status": 415,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _wire_json(error: ConnectError) -> bytes:
    return ConnectWireError.from_exception(error).to_json_bytes()
