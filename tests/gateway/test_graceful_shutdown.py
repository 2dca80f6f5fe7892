"""Graceful shutdown: once uvicorn is told to stop, a request already in flight still gets
its whole answer, and only then does the lifespan close the DynamoDB client."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import httpx
import pytest
import uvicorn

import gateway.app
from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.cli.demo import ADA, seed_demo
from gateway.resources import open_dynamo
from gateway.settings import Settings
from gateway.state import opened_resources, resources_of
from loaders.dynamodb import Dynamo
from schema.principal import DASHBOARD
from support.faults import Delay, FaultProxy
from support.fixed_clock import FixedClock

SECRET = "shutdown-tests-secret-0123456789abcdef"
QUERY = f'{{ user(id: "{ADA}") {{ id alert {{ alertSent balanceSetting }} }} }}'


async def test_an_in_flight_request_finishes_before_the_client_closes(
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    proxy: FaultProxy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The request's BatchGetItem is held at the proxy while the server is told to stop:
    its full answer can only come back if the client stayed open until it was done."""
    await seed_demo(dynamo, clock.now(), settings)
    closed: list[Dynamo] = []

    @asynccontextmanager
    async def recording_open_dynamo(settings: Settings) -> AsyncIterator[Dynamo]:
        async with open_dynamo(settings) as opened:
            yield opened
        closed.append(opened)

    monkeypatch.setattr(gateway.app, "open_dynamo", recording_open_dynamo)
    configured = dataclasses.replace(
        settings, dynamodb_endpoint_url=proxy.endpoint_url, auth_hs256_secret=SECRET
    )
    app = create_app(configured, clock=clock)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, lifespan="on", log_level="warning", timeout_graceful_shutdown=10)
    )
    # uvicorn has its own loop in its thread; the proxy answers from the test's loop.
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            await asyncio.sleep(0.025)
        assert server.started
        dynamo_of_app: Dynamo = opened_resources(app).dynamo
        token = mint_token(SECRET, "dash-1", [DASHBOARD], timedelta(hours=1), clock)
        proxy.inject("BatchGetItem", Delay(1.0), times=1)
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {token}"}
        ) as client:
            in_flight = asyncio.create_task(client.post("/graphql", json={"query": QUERY}))
            for _ in range(500):  # until the proxy holds the call (bounded: 5 s)
                if proxy.injected["BatchGetItem"]:
                    break
                await asyncio.sleep(0.01)
            assert proxy.injected["BatchGetItem"] == 1
            server.should_exit = True  # what SIGTERM does
            response = await in_flight
        assert response.status_code == 200
        assert response.json() == {
            "data": {"user": {"id": ADA, "alert": {"alertSent": True, "balanceSetting": "100.00"}}}
        }
        await asyncio.to_thread(thread.join, 15)
        assert not thread.is_alive()
        # The lifespan ran its exit: the app let go of the client, and closed it.
        assert resources_of(app) is None
        assert closed == [dynamo_of_app]
    finally:
        server.should_exit = True
        await asyncio.to_thread(thread.join, 15)
        sock.close()
