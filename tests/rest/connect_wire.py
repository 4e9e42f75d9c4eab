"""A small Connect and gRPC-Web client for the tests, written from the protocol specs over plain HTTP.

Hand-written on purpose: the tests need to send bytes no library would (malformed bodies,
unknown fields), and a client that is not connectrpc's own checks the server against the
specs rather than against itself. Three wire protocols, one result shape:

- ``connect-json`` / ``connect-proto``: Connect unary (``application/json`` / ``application/proto``);
  errors are a JSON body ``{code, message, details: [{type, value}]}``.
- ``grpc-web``: ``application/grpc-web+proto``, enveloped messages, the status in a trailer frame
  (or in the headers of a trailers-only answer), details in ``grpc-status-details-bin``.
Server streams over Connect use ``application/connect+json|proto`` and an end-of-stream frame.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import requests
from google.protobuf import json_format
from google.protobuf.any_pb2 import Any as AnyPb
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

PROTOCOLS = ("connect-json", "connect-proto", "grpc-web")
SERVICE = "/tabletop.v1.GameService/"
# gRPC status numbers -> Connect code names (connect.build/docs/protocol#error-codes).
CODE_NAMES = ["ok", "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found", "already_exists",
              "permission_denied", "resource_exhausted", "failed_precondition", "aborted", "out_of_range",
              "unimplemented", "internal", "unavailable", "data_loss", "unauthenticated"]


@dataclass
class Result:
    """What came back: the messages, then the status (``ok`` or a Connect code name)."""

    http_status: int
    messages: list[Message] = field(default_factory=list)
    code: str = "ok"
    message: str = ""
    details: list[AnyPb] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def reason(self) -> str:
        """The ErrorInfo reason among the details ("" when there is none)."""
        for detail in self.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return info.reason
        return ""

    def one(self) -> Message:
        assert self.code == "ok", f"{self.code}: {self.message} ({self.reason})"
        assert len(self.messages) == 1, self.messages
        return self.messages[0]


@dataclass
class ConnectWire:
    """Calls ``GameService`` methods at ``base`` over one of ``PROTOCOLS``."""

    base: str
    protocol: str
    session: requests.Session = field(default_factory=requests.Session)

    def call(self, method: str, request: Message, response_class: type[Message], token: str | None = None,
             headers: dict[str, str] | None = None) -> Result:
        """A unary call."""
        content_type, body = self.encode(request)
        return self.post(method, body, response_class, content_type, token, headers)

    def encode(self, request: Message) -> tuple[str, bytes]:
        """The content type and body of a unary request in this protocol."""
        if self.protocol == "connect-json":
            return "application/json", json_format.MessageToJson(request).encode()
        if self.protocol == "connect-proto":
            return "application/proto", request.SerializeToString()
        return "application/grpc-web+proto", frame(request.SerializeToString())

    def post(self, method: str, body: bytes, response_class: type[Message], content_type: str,
             token: str | None = None, headers: dict[str, str] | None = None) -> Result:
        """A unary call with a body of the caller's making."""
        reply = self.session.post(self.base + SERVICE + method, data=body, timeout=10,
                                  headers=_headers(content_type, token, headers))
        if self.protocol == "grpc-web":
            return _grpc_web_result(reply, response_class)
        result = Result(reply.status_code, headers=dict(reply.headers))
        if reply.status_code == 200:
            message = response_class()
            if self.protocol == "connect-json":
                json_format.Parse(reply.content, message)
            else:
                message.ParseFromString(reply.content)
            result.messages.append(message)
            return result
        _connect_error(result, reply.json())
        return result

    def stream(self, method: str, request: Message, response_class: type[Message], token: str | None = None,
               count: int = 1) -> Result:
        """A server-streaming call, read until ``count`` messages or the end of the stream."""
        if self.protocol == "grpc-web":
            content_type, body = "application/grpc-web+proto", frame(request.SerializeToString())
        elif self.protocol == "connect-json":
            content_type, body = "application/connect+json", frame(json_format.MessageToJson(request).encode())
        else:
            content_type, body = "application/connect+proto", frame(request.SerializeToString())
        with self.session.post(self.base + SERVICE + method, data=body, timeout=10, stream=True,
                               headers=_headers(content_type, token, None)) as reply:
            result = Result(reply.status_code, headers=dict(reply.headers))
            if self.protocol == "grpc-web" and "grpc-status" in reply.headers:
                _grpc_status(result, reply.headers)
                return result
            for flags, payload in frames(reply.iter_content(chunk_size=None)):
                if flags & 0x80:  # gRPC-Web trailers
                    _grpc_status(result, _trailer_lines(payload))
                    return result
                if flags & 0x02:  # Connect end of stream
                    end = json.loads(payload or b"{}")
                    if "error" in end:
                        _connect_error(result, end["error"])
                    return result
                result.messages.append(_decode(payload, response_class, self.protocol == "connect-json"))
                if len(result.messages) >= count:
                    return result
        return result


def frame(payload: bytes, flags: int = 0) -> bytes:
    """One enveloped message: a flags byte, a big-endian length, the payload."""
    return struct.pack(">BI", flags, len(payload)) + payload


def frames(chunks: Iterator[bytes] | Any) -> Iterator[tuple[int, bytes]]:
    """The (flags, payload) envelopes of a body arriving in chunks."""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while len(buffer) >= 5:
            flags, length = struct.unpack(">BI", buffer[:5])
            if len(buffer) < 5 + length:
                break
            yield flags, buffer[5:5 + length]
            buffer = buffer[5 + length:]


# Helpers

def _headers(content_type: str, token: str | None, extra: dict[str, str] | None) -> dict[str, str]:
    headers = {"Content-Type": content_type, **(extra or {})}
    if content_type.startswith("application/grpc-web"):
        headers["X-Grpc-Web"] = "1"
    else:
        headers["Connect-Protocol-Version"] = "1"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _decode(payload: bytes, response_class: type[Message], as_json: bool) -> Message:
    message = response_class()
    if as_json:
        json_format.Parse(payload, message)
    else:
        message.ParseFromString(payload)
    return message


def _connect_error(result: Result, error: dict[str, Any]) -> None:
    result.code, result.message = error.get("code", ""), error.get("message", "")
    for detail in error.get("details", []):
        value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
        result.details.append(AnyPb(type_url="type.googleapis.com/" + detail["type"], value=value))


def _grpc_web_result(reply: requests.Response, response_class: type[Message]) -> Result:
    result = Result(reply.status_code, headers=dict(reply.headers))
    if "grpc-status" in reply.headers:  # trailers-only
        _grpc_status(result, reply.headers)
        return result
    for flags, payload in frames([reply.content]):
        if flags & 0x80:
            _grpc_status(result, _trailer_lines(payload))
        else:
            result.messages.append(_decode(payload, response_class, False))
    return result


def _trailer_lines(payload: bytes) -> dict[str, str]:
    trailers = {}
    for line in payload.decode("latin-1").split("\r\n"):
        if ":" in line:
            name, _, value = line.partition(":")
            trailers[name.strip().lower()] = value.strip()
    return trailers


def _grpc_status(result: Result, trailers: Any) -> None:
    result.code = CODE_NAMES[int(trailers.get("grpc-status", "2"))]
    result.message = requests.utils.unquote(trailers.get("grpc-message", ""))
    details = trailers.get("grpc-status-details-bin")
    if details:
        status = status_pb2.Status.FromString(base64.b64decode(details + "=" * (-len(details) % 4)))
        result.details.extend(status.details)
