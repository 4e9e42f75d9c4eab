"""The operator's webhook endpoints: read once from ``TABLETOP_WEBHOOKS_FILE`` and checked at start.

The file is JSON (mount it from a Secret: it holds the signing secrets)::

    [{"name": "push", "url": "https://push.studio.example/tabletop", "secret": "whsec_<base64>",
      "events": ["turn.started", "game.finished"], "max_in_flight": 8, "rate_per_second": 50}]

- ``name``: 1 to 40 of ``a-z 0-9 -``; it names the endpoint's Redis keys (``{wh:<name>}``), its metrics
  and the ``tabletop webhooks`` commands, so renaming an endpoint starts a new queue.
- ``secret``: a Standard Webhooks secret, ``whsec_`` and the base64 of 24 to 64 random bytes.
- ``events``: the event types it receives, or ``["*"]`` for every type.
- ``max_in_flight`` (default 8): deliveries to it at once, over all replicas; ``rate_per_second``
  (default 50, 0 = no limit): delivery attempts a second, over all replicas, in bursts of as many.

Server-side request forgery: an endpoint URL must be ``https`` (``http`` only with
``TABLETOP_WEBHOOK_ALLOW_HTTP``), carry no user info, and name a host in
``TABLETOP_WEBHOOK_ALLOWED_HOSTS`` (``host`` or ``*.domain``). Which addresses a host may resolve
to is checked again at every connection (``transport.py``).
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tabletop_server.service.config import Config

NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
EVENT_TYPE = re.compile(r"[a-z0-9_]{1,40}(?:\.[a-z0-9_]{1,40}){0,4}")
MAX_ENDPOINTS = 32
FIELDS = {"name", "url", "secret", "events", "max_in_flight", "rate_per_second"}


@dataclass(frozen=True)
class Endpoint:
    """One configured receiver."""

    name: str
    url: str
    secret: str
    events: frozenset[str]
    max_in_flight: int = 8
    rate_per_second: float = 50.0

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    def wants(self, event_type: str) -> bool:
        """Whether this endpoint receives events of ``event_type``."""
        return "*" in self.events or event_type in self.events


class EndpointsInvalid(ValueError):
    """The endpoints file or the allow-list cannot work; the message names the entry and the fix."""


def configured(config: Config) -> tuple[Endpoint, ...]:
    """The endpoints of ``config`` (none when no file is set), read and checked once per process."""
    if not config.webhooks_file:
        return ()
    return _load(config.webhooks_file, config.webhook_allowed_hosts, config.webhook_allow_http)


def host_allowed(host: str, allowed_hosts: str) -> bool:
    """Whether ``host`` matches an entry of the comma-separated allow-list (``name`` or ``*.domain``)."""
    host = host.lower().rstrip(".")
    for entry in (e.strip().lower().rstrip(".") for e in allowed_hosts.split(",")):
        if not entry:
            continue
        if entry.startswith("*."):
            if host.endswith(entry[1:]) and len(host) > len(entry) - 1:
                return True
        elif host == entry:
            return True
    return False


def parse(raw: Any, allowed_hosts: str, allow_http: bool) -> tuple[Endpoint, ...]:
    """Endpoints from the file's JSON value; :class:`EndpointsInvalid` names the first problem."""
    if not isinstance(raw, list) or not raw or len(raw) > MAX_ENDPOINTS:
        raise EndpointsInvalid(f"the webhooks file holds a JSON array of 1 to {MAX_ENDPOINTS} endpoints")
    out: list[Endpoint] = []
    for index, entry in enumerate(raw):
        endpoint = _endpoint(entry, f"endpoint {index}", allowed_hosts, allow_http)
        if endpoint.name in {e.name for e in out}:
            raise EndpointsInvalid(f"endpoint {index}: the name {endpoint.name!r} is used twice")
        out.append(endpoint)
    return tuple(out)


# Helpers

@lru_cache(maxsize=8)
def _load(path: str, allowed_hosts: str, allow_http: bool) -> tuple[Endpoint, ...]:
    try:
        raw = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise EndpointsInvalid(f"TABLETOP_WEBHOOKS_FILE={path!r} cannot be read as JSON: {exc}") from exc
    try:
        return parse(raw, allowed_hosts, allow_http)
    except EndpointsInvalid as exc:
        raise EndpointsInvalid(f"TABLETOP_WEBHOOKS_FILE={path!r}: {exc}") from exc


def _endpoint(entry: Any, where: str, allowed_hosts: str, allow_http: bool) -> Endpoint:
    if not isinstance(entry, dict) or not {"name", "url", "secret", "events"} <= set(entry):
        raise EndpointsInvalid(f"{where}: an object with name, url, secret and events")
    if unknown := set(entry) - FIELDS:
        raise EndpointsInvalid(f"{where}: unknown fields {sorted(unknown)} (known: {sorted(FIELDS)})")
    name = entry["name"]
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise EndpointsInvalid(f"{where}: name {name!r} is 1 to 40 of a-z, 0-9 and '-'")
    where = f"endpoint {name!r}"
    _check_url(entry["url"], where, allowed_hosts, allow_http)
    _check_secret(entry["secret"], where)
    events = entry["events"]
    if (not isinstance(events, list) or not events
            or not all(isinstance(e, str) and (e == "*" or EVENT_TYPE.fullmatch(e)) for e in events)):
        raise EndpointsInvalid(f"{where}: events is a non-empty list of event types (turn.started) or [\"*\"]")
    in_flight = entry.get("max_in_flight", 8)
    rate = entry.get("rate_per_second", 50.0)
    if not isinstance(in_flight, int) or isinstance(in_flight, bool) or not 1 <= in_flight <= 256:
        raise EndpointsInvalid(f"{where}: max_in_flight is an integer from 1 to 256")
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not 0 <= rate <= 10000:
        raise EndpointsInvalid(f"{where}: rate_per_second is a number from 0 (no limit) to 10000")
    return Endpoint(name, entry["url"], entry["secret"], frozenset(events), in_flight, float(rate))


def _check_url(url: Any, where: str, allowed_hosts: str, allow_http: bool) -> None:
    if not isinstance(url, str) or len(url) > 2048:
        raise EndpointsInvalid(f"{where}: url is a string of at most 2048 characters")
    parts = urlsplit(url)
    if parts.scheme != "https" and not (allow_http and parts.scheme == "http"):
        raise EndpointsInvalid(f"{where}: url {url!r} is not https (http only with TABLETOP_WEBHOOK_ALLOW_HTTP)")
    if parts.username or parts.password or parts.fragment or not parts.hostname:
        raise EndpointsInvalid(f"{where}: url {url!r} names a host and no user info or fragment")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise EndpointsInvalid(f"{where}: url {url!r} has a bad port") from exc
    if not host_allowed(parts.hostname, allowed_hosts):
        raise EndpointsInvalid(f"{where}: host {parts.hostname!r} is not in TABLETOP_WEBHOOK_ALLOWED_HOSTS "
                               f"({allowed_hosts or 'empty'}); add it (or *.its-domain) to deliver there")


def _check_secret(secret: Any, where: str) -> None:
    if not isinstance(secret, str) or not secret.startswith("whsec_"):
        raise EndpointsInvalid(f"{where}: secret is 'whsec_' and the base64 of 24 to 64 random bytes")
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except ValueError as exc:
        raise EndpointsInvalid(f"{where}: secret after 'whsec_' is not base64") from exc
    if not 24 <= len(key) <= 64:
        raise EndpointsInvalid(f"{where}: secret holds {len(key)} bytes; use 24 to 64 random bytes "
                               "(python3 -c \"import base64,os;print('whsec_'+base64.b64encode(os.urandom(32)).decode())\")")
