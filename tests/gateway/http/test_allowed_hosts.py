"""Known hosts only (INSIGHT_ALLOWED_HOSTS, issue 42), as the probe sent them: a foreign
`Host` (DNS rebinding: `Host: evil.example` with `Origin: http://evil.example`) is refused
over HTTP and on the socket's upgrade, on a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import os

import httpx
import pytest

from gateway.app import create_app
from gateway.cli.serve import embedded_hosts
from gateway.configuration import SettingsError
from gateway.operations.hosts import LOOPBACK_HOSTS
from gateway.settings import Settings
from support.fixed_clock import FixedClock
from support.http_client import SECRET
from support.serving import serving

WAIT_SECONDS = 10.0


def _allowed(settings: Settings, *hosts: str) -> Settings:
    return dataclasses.replace(
        settings, auth_hs256_secret=SECRET, subscriptions=True, allowed_hosts=hosts
    )


async def _upgrade(url: str, host: str, origin: str | None) -> bytes:
    """The status line of a WebSocket upgrade sent with `host` (and `origin`)."""
    address = url.removeprefix("ws://").split("/")[0]
    ip, port = address.split(":")
    reader, writer = await asyncio.open_connection(ip, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    head = (
        f"GET /graphql HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: graphql-transport-ws\r\n"
    )
    if origin is not None:
        head += f"Origin: {origin}\r\n"
    writer.write((head + "\r\n").encode())
    try:
        return await asyncio.wait_for(reader.readline(), WAIT_SECONDS)
    finally:
        writer.close()


async def test_a_foreign_host_is_refused_over_http(settings: Settings, clock: FixedClock) -> None:
    app = create_app(_allowed(settings, "gateway.example", "*.internal.example"), clock=clock)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://evil.example") as client:
        foreign = await client.post("/graphql", json={"query": "{ __typename }"})
        known = await client.get("/healthz", headers={"Host": "gateway.example"})
        wildcard = await client.get("/healthz", headers={"Host": "a.internal.example:8000"})
    assert foreign.status_code == 400
    assert foreign.text == "Invalid host header"
    assert (known.status_code, wildcard.status_code) == (200, 200)


async def test_a_foreign_host_is_refused_on_the_socket_upgrade(
    settings: Settings, clock: FixedClock
) -> None:
    app = create_app(_allowed(settings, *LOOPBACK_HOSTS), clock=clock)
    async with serving(app) as url:
        port = url.split(":")[2].split("/")[0]
        rebound = await _upgrade(url, f"evil.example:{port}", f"http://evil.example:{port}")
        foreign_origin = await _upgrade(url, f"127.0.0.1:{port}", "http://evil.example")
        loopback = await _upgrade(url, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}")
        # Another allowed host's page: the origin is checked against the allowed hosts.
        localhost_page = await _upgrade(url, f"127.0.0.1:{port}", f"http://localhost:{port}")
        no_origin = await _upgrade(url, f"[::1]:{port}", None)

    assert rebound.startswith(b"HTTP/1.1 400")
    assert foreign_origin.startswith(b"HTTP/1.1 403")
    assert loopback.startswith(b"HTTP/1.1 101")
    assert localhost_page.startswith(b"HTTP/1.1 101")
    assert no_origin.startswith(b"HTTP/1.1 101")


async def test_a_foreign_host_is_refused_before_a_live_stream(
    settings: Settings, clock: FixedClock
) -> None:
    """A live HTTP stream (SSE, multipart) skips the HTTP stack's middleware, as a socket
    does: its lane checks the host too, before the token or the stream."""
    app = create_app(_allowed(settings, "gateway.example"), clock=clock)
    transport = httpx.ASGITransport(app=app)
    body = {"query": "subscription { viewerChanged { id } }"}
    async with httpx.AsyncClient(transport=transport, base_url="http://evil.example") as client:
        for accept in ("text/event-stream", 'multipart/mixed;subscriptionSpec="1.0"'):
            foreign = await client.post("/graphql", json=body, headers={"Accept": accept})
            assert (foreign.status_code, foreign.text) == (400, "Invalid host header")


async def test_unset_any_host_is_served(settings: Settings, clock: FixedClock) -> None:
    app = create_app(_allowed(settings), clock=clock)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://anything.example") as client:
        assert (await client.get("/healthz")).status_code == 200


@pytest.mark.parametrize(
    ("listening", "hosts"),
    [
        ("127.0.0.1", LOOPBACK_HOSTS),
        ("::1", LOOPBACK_HOSTS),
        ("0.0.0.0", LOOPBACK_HOSTS),
        ("192.168.1.5", (*LOOPBACK_HOSTS, "192.168.1.5")),
        ("Box.LAN", (*LOOPBACK_HOSTS, "box.lan")),
    ],
)
def test_serve_embedded_answers_the_loopback_names(listening: str, hosts: tuple[str, ...]) -> None:
    assert embedded_hosts(listening) == hosts


@pytest.mark.parametrize("bad", ["https://api.example.com", "api.example.com:443", "a.*.com"])
def test_a_host_list_is_host_names(bad: str) -> None:
    with pytest.raises(SettingsError, match="INSIGHT_ALLOWED_HOSTS"):
        Settings.from_environ({"INSIGHT_ALLOWED_HOSTS": f"gateway.example,{bad}"})
