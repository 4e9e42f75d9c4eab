"""Structured logs: one JSON object per line, with only allowlisted fields (issue 5).

Log lines carry only an allowlist of fields (request id, game, seat, version, ruleset, method,
code, reason, duration): never a hand, a role, a ticket or a token, because those are never put
on a record (``observability.py`` writes the access log) and ``JsonFormatter`` drops every other
attribute and scrubs anything shaped like a token. ``configure_logging`` installs it (or plain
text) on the root logger for ``tabletop serve``.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from typing import Any

import orjson

LOG_FIELDS = ("request_id", "method", "code", "reason", "game", "seat", "version", "ruleset", "duration_ms",
              "replayed", "peer")
# A player token is ``<game id>.<seat>.<secret>``; defence in depth if one ever reaches a message.
TOKEN_SHAPE = re.compile(r"\b[0-9a-f]{8,64}\.\d{1,3}\.[A-Za-z0-9_-]{16,}")


class JsonFormatter(logging.Formatter):
    """One JSON object per line with only allowlisted fields, token-shaped strings scrubbed.

    Only the message, the client-chosen request id and tracebacks are scrubbed: every
    other field is produced by the service itself (ids, codes, numbers).
    """

    _second: tuple[int, str] = (-1, "")

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"ts": self._timestamp(record), "level": record.levelname, "logger": record.name,
                               "msg": _scrub(record.getMessage())}
        for name in LOG_FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                out[name] = value
        if "request_id" in out:
            out["request_id"] = _scrub(str(out["request_id"]))
        if record.exc_info:
            out["error"] = _scrub(self.formatException(record.exc_info))
        return orjson.dumps(out, default=str).decode()

    def _timestamp(self, record: logging.LogRecord) -> str:
        second = int(record.created)
        if self._second[0] != second:  # strftime once per second, not per line
            self._second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
        return f"{self._second[1]}.{int(record.msecs):03d}Z"


def configure_logging(level: str, fmt: str, stream: Any = None) -> None:
    """Root logging: ``json`` (one object per line) or ``text``."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


# Helpers


def _scrub(text: str) -> str:
    return TOKEN_SHAPE.sub("[redacted]", text)
