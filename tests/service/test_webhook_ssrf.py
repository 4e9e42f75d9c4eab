"""Webhooks reach only addresses the operator allowed: the endpoints file is checked at start, and every
connection checks the addresses its host resolves to at that moment; redirects are never followed.

The refusals are shown against a real receiver on loopback that would have answered 204: it gets nothing."""

from __future__ import annotations

import asyncio
import ipaddress
import json
from pathlib import Path

import pytest

from tabletop_server.service.config import Config
from tabletop_server.service.store.redis_store import connect
from tabletop_server.service.webhooks import endpoints, outbox, transport
from tests.service.webhook_kit import (
    drained,
    endpoint_name,
    loopback_config,
    run_until,
    sweep,
    value,
    write_endpoints,
)
from tests.webhook_receiver import Receiver, new_secret


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1",
                                     "169.254.169.254", "fe80::1", "fc00::1", "100.64.0.1", "0.0.0.0", "::",
                                     "::ffff:127.0.0.1", "::ffff:169.254.169.254", "224.0.0.1", "255.255.255.255",
                                     "192.0.2.1", "198.18.0.1", "240.0.0.1"])
def test_internal_and_special_addresses_are_refused_unless_allowed(address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert not transport.address_allowed(ip, ())
    judged = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip
    prefix = 32 if judged.version == 4 else 128
    assert transport.address_allowed(ip, transport.networks(f"{judged}/{prefix}"))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert transport.address_allowed(ipaddress.ip_address(address), ())


def test_a_bad_network_setting_is_named() -> None:
    with pytest.raises(ValueError, match="'10.0.0.0/33' is not a CIDR"):
        transport.networks("127.0.0.0/8, 10.0.0.0/33")


def test_host_allow_list_matches_names_and_subdomains_only() -> None:
    allowed = "push.studio.example, *.hooks.example"
    assert endpoints.host_allowed("push.studio.example", allowed)
    assert endpoints.host_allowed("PUSH.studio.example.", allowed)
    assert endpoints.host_allowed("a.hooks.example", allowed)
    assert not endpoints.host_allowed("hooks.example", allowed)
    assert not endpoints.host_allowed("evilhooks.example", allowed)
    assert not endpoints.host_allowed("push.studio.example.evil.test", allowed)
    assert not endpoints.host_allowed("anything", "")


def deliver_once(redis_url: str, tmp_path: Path, receiver: Receiver, url: str, **overrides: object):  # type: ignore[no-untyped-def]
    """Queue one event for an endpoint at ``url`` and let a dispatcher try for a while: its metrics."""
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [{"name": name, "url": url, "secret": receiver.secret,
                                                    "events": ["*"]}], **overrides)

    async def go():  # type: ignore[no-untyped-def]
        client = connect(redis_url)
        try:
            assert await outbox.enqueue(client, config, "turn.started", "p", {"a": 1}, "ssrf") == 1
        finally:
            await client.close()
        return await run_until(config, lambda: drained(redis_url, name), 1.0)

    try:
        return name, asyncio.run(go())
    finally:
        sweep(redis_url, name)


def test_loopback_is_refused_at_connect_time_when_not_explicitly_allowed(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver().start()
    try:
        name, metrics = deliver_once(redis_url, tmp_path, receiver, receiver.url, webhook_allowed_networks="")
        assert receiver.all() == [], "a delivery reached a loopback address"
        assert value(metrics, "tabletop_webhooks_failed_total", endpoint=name, reason="address_refused") >= 1
        assert value(metrics, "tabletop_webhooks_sent_total", endpoint=name) == 0
    finally:
        receiver.stop()


def test_a_name_resolving_to_loopback_is_refused_unless_its_network_is_allowed(
        redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver().start()
    try:
        name, metrics = deliver_once(redis_url, tmp_path, receiver, f"http://localhost:{receiver.port}/hook",
                                     webhook_allowed_networks="10.0.0.0/8")
        assert receiver.all() == []
        assert value(metrics, "tabletop_webhooks_failed_total", endpoint=name, reason="address_refused") >= 1
        name, metrics = deliver_once(redis_url, tmp_path, receiver, f"http://localhost:{receiver.port}/hook",
                                     webhook_allowed_networks="127.0.0.0/8,::1/128")
        assert [d.status for d in receiver.all()] == [204]
    finally:
        receiver.stop()


def test_one_internal_address_among_public_ones_refuses_the_host() -> None:
    # A name answering a public and an internal address is a rebinding attempt, never a fallback.
    public, internal = ipaddress.ip_address("93.184.216.34"), ipaddress.ip_address("169.254.169.254")
    transport.check_addresses("push.studio.example", [public], ())
    for answer in ([public, internal], [internal, public], []):
        with pytest.raises(transport.AddressRefused) as refused:
            transport.check_addresses("push.studio.example", answer, ())
        assert refused.value.reason == "ADDRESS_NOT_ALLOWED"


def test_a_redirect_is_a_failed_attempt_and_never_followed(redis_url: str, tmp_path: Path) -> None:
    target = Receiver().start()
    redirector = Receiver(redirect_to=target.url).start()
    redirector.secret = target.secret
    try:
        name, metrics = deliver_once(redis_url, tmp_path, redirector, redirector.url)
        assert redirector.all() and all(d.status == 302 for d in redirector.all())
        assert target.all() == [], "a redirect was followed"
        assert value(metrics, "tabletop_webhooks_failed_total", endpoint=name, reason="http_3xx") >= 1
    finally:
        target.stop()
        redirector.stop()


def test_a_host_outside_the_allow_list_is_refused_at_connect_time_too() -> None:
    backend = transport.GuardedBackend("push.studio.example", transport.networks("127.0.0.0/8"))
    with pytest.raises(transport.AddressRefused) as refused:
        asyncio.run(backend.connect_tcp("127.0.0.1", 9))
    assert refused.value.reason == "HOST_NOT_ALLOWED"
    with pytest.raises(transport.AddressRefused):
        asyncio.run(backend.connect_unix_socket("/var/run/docker.sock"))


ENTRY = {"name": "push", "url": "https://push.studio.example/hook", "secret": new_secret(), "events": ["*"]}


@pytest.mark.parametrize(("change", "message"), [
    ({"url": "https://evil.example/hook"}, "host 'evil.example' is not in TABLETOP_WEBHOOK_ALLOWED_HOSTS"),
    ({"url": "http://push.studio.example/hook"}, "is not https"),
    ({"url": "file:///etc/passwd"}, "is not https"),
    ({"url": "https://user:pw@push.studio.example/"}, "no user info"),
    ({"url": "https://push.studio.example:99999/"}, "bad port"),
    ({"secret": "not-a-secret"}, "secret is 'whsec_'"),
    ({"secret": "whsec_c2hvcnQ="}, "holds 5 bytes"),
    ({"secret": "whsec_%%%"}, "not base64"),
    ({"events": []}, "events is a non-empty list"),
    ({"events": ["Turn Started"]}, "events is a non-empty list"),
    ({"name": "Push!"}, "is 1 to 40 of a-z"),
    ({"max_in_flight": 0}, "max_in_flight is an integer from 1 to 256"),
    ({"rate_per_second": -1}, "rate_per_second is a number"),
    ({"headers": {}}, "unknown fields ['headers']"),
])
def test_the_endpoints_file_is_checked_at_start(change: dict[str, object], message: str) -> None:
    with pytest.raises(endpoints.EndpointsInvalid, match=message.replace("(", r"\(").replace("[", r"\[")):
        endpoints.parse([{**ENTRY, **change}], "push.studio.example", allow_http=False)


def test_names_are_unique_and_the_file_is_an_array(tmp_path: Path) -> None:
    with pytest.raises(endpoints.EndpointsInvalid, match="used twice"):
        endpoints.parse([ENTRY, ENTRY], "push.studio.example", False)
    with pytest.raises(endpoints.EndpointsInvalid, match="JSON array"):
        endpoints.parse({"name": "x"}, "push.studio.example", False)
    path = tmp_path / "broken.json"
    path.write_text("[{")
    with pytest.raises(endpoints.EndpointsInvalid, match="cannot be read as JSON"):
        endpoints.configured(Config(webhooks_file=str(path), webhook_allowed_hosts="push.studio.example"))
    config = Config(webhooks_file=write_endpoints(tmp_path, [ENTRY]), webhook_allowed_hosts="*.studio.example")
    [endpoint] = endpoints.configured(config)
    assert endpoint.host == "push.studio.example" and endpoint.max_in_flight == 8 and endpoint.rate_per_second == 50
    assert json.loads(Path(config.webhooks_file).read_text())[0]["secret"] == endpoint.secret


def test_settings_that_cannot_work_are_refused() -> None:
    with pytest.raises(ValueError, match="needs TABLETOP_WEBHOOK_ALLOWED_HOSTS"):
        Config(webhooks_file="/x.json")
    with pytest.raises(ValueError, match="must exceed TABLETOP_WEBHOOK_TIMEOUT_SECONDS"):
        Config(webhook_lease_seconds=5, webhook_timeout_seconds=10)
    with pytest.raises(ValueError, match="are positive"):
        Config(webhook_poll_seconds=0)
