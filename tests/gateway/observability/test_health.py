"""`/healthz` and `/readyz`, the latter against the real tables and under injected faults."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from gateway.app import create_app
from gateway.settings import Settings
from schema.clock import FixedClock
from tests.faults import Delay, FaultProxy, Throttle


@asynccontextmanager
async def serving(settings: Settings, clock: FixedClock) -> AsyncIterator[httpx.AsyncClient]:
    """The app with its lifespan running, reached in-process over ASGI."""
    app = create_app(settings, clock=clock)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://gateway") as client,
    ):
        yield client


def through(proxy: FaultProxy, settings: Settings, **changes: float) -> Settings:
    return dataclasses.replace(
        settings,
        dynamodb_endpoint_url=proxy.endpoint_url,
        dynamodb_max_attempts=2,
        **changes,  # type: ignore[arg-type]
    )


async def test_healthz_answers_without_dynamodb(settings: Settings, clock: FixedClock) -> None:
    app = create_app(settings, clock=clock)
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        response = await client.get("/healthz")
        assert (response.status_code, response.json()) == (200, {"status": "ok"})
        # No lifespan, no client: alive, but not ready.
        response = await client.get("/readyz")
        assert (response.status_code, response.json()) == (503, {"status": "unavailable"})


async def test_readyz_describes_every_table(
    proxy: FaultProxy, settings: Settings, clock: FixedClock
) -> None:
    async with serving(through(proxy, settings), clock) as client:
        response = await client.get("/readyz")
    assert (response.status_code, response.json()) == (200, {"status": "ready"})
    # The Insight Service's five tables and the gateway's own table of idempotency keys.
    assert proxy.received == {"DescribeTable": 6}


async def test_readyz_is_503_naming_nothing_when_a_table_is_missing(
    settings: Settings, clock: FixedClock
) -> None:
    missing = dataclasses.replace(
        settings, tables=dataclasses.replace(settings.tables, locks="no-such-locks-table")
    )
    async with serving(missing, clock) as client:
        response = await client.get("/readyz")
    assert (response.status_code, response.json()) == (503, {"status": "unavailable"})
    assert "no-such" not in response.text


async def test_readyz_is_503_when_dynamodb_is_slower_than_the_readiness_timeout(
    proxy: FaultProxy, settings: Settings, clock: FixedClock
) -> None:
    # The slow table answers long after the timeout; the proxy's teardown cancels it.
    proxy.inject("DescribeTable", Delay(30.0), times=1, when=lambda body: "locks" in str(body))
    slow = through(proxy, settings, readiness_timeout_seconds=0.3)
    async with serving(slow, clock) as client:
        response = await client.get("/readyz")
        answered = proxy.answered["DescribeTable"]
    assert (response.status_code, response.json()) == (503, {"status": "unavailable"})
    # Order, not a stopwatch: /readyz answered while the slow DescribeTable was still held.
    assert proxy.injected["DescribeTable"] == 1
    assert answered == proxy.received["DescribeTable"] - 1


async def test_readyz_is_503_while_dynamodb_throttles(
    proxy: FaultProxy, settings: Settings, clock: FixedClock
) -> None:
    proxy.inject("DescribeTable", Throttle("ThrottlingException"), times=1000)
    async with serving(through(proxy, settings, readiness_timeout_seconds=5.0), clock) as client:
        response = await client.get("/readyz")
        assert (response.status_code, response.json()) == (503, {"status": "unavailable"})
        # Once DynamoDB answers again, so does readiness.
        proxy.reset()
        response = await client.get("/readyz")
        assert (response.status_code, response.json()) == (200, {"status": "ready"})
