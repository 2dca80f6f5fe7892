"""`/healthz` and `/readyz`, the latter against the real tables and under injected faults."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from gateway.app import create_app
from gateway.settings import Settings
from loaders.tables import Table
from support.faults import Delay, FaultProxy, Throttle
from support.fixed_clock import FixedClock

#: One look at the tables: a DescribeTable for each.
ONE_LOOK = {"DescribeTable": len(Table)}


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
    assert proxy.received == ONE_LOOK


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
    # No memory of the last look: the second probe looks again.
    unremembered = through(proxy, settings, readiness_timeout_seconds=5.0, readyz_cache_seconds=0)
    async with serving(unremembered, clock) as client:
        response = await client.get("/readyz")
        assert (response.status_code, response.json()) == (503, {"status": "unavailable"})
        # Once DynamoDB answers again, so does readiness.
        proxy.reset()
        response = await client.get("/readyz")
        assert (response.status_code, response.json()) == (200, {"status": "ready"})


async def test_concurrent_probes_share_one_look_at_the_tables(
    proxy: FaultProxy, settings: Settings, clock: FixedClock
) -> None:
    # Probes that arrive while a look is under way wait for it, and take its answer (a
    # window no loaded machine outlasts, so that no probe looks again after it).
    async with serving(through(proxy, settings, readyz_cache_seconds=60), clock) as client:
        answers = await asyncio.gather(*(client.get("/readyz") for _ in range(30)))
    assert {(answer.status_code, answer.text) for answer in answers} == {
        (200, '{"status":"ready"}')
    }
    assert proxy.received == ONE_LOOK


async def test_rapid_probes_within_the_window_make_one_round_of_calls(
    proxy: FaultProxy, settings: Settings, clock: FixedClock
) -> None:
    # A window no loaded machine outlasts: the count, not a stopwatch, is asserted.
    remembered = through(proxy, settings, readyz_cache_seconds=60)
    async with serving(remembered, clock) as client:
        for _ in range(3):
            answers = await asyncio.gather(*(client.get("/readyz") for _ in range(10)))
            assert {answer.status_code for answer in answers} == {200}
    assert proxy.received == ONE_LOOK


async def test_a_failed_look_is_remembered_too(
    proxy: FaultProxy, settings: Settings, clock: FixedClock
) -> None:
    # Throttled probes must not multiply the calls that are being throttled.
    proxy.inject("DescribeTable", Throttle("ThrottlingException"), times=1000)
    remembered = through(proxy, settings, readiness_timeout_seconds=5.0, readyz_cache_seconds=60)
    async with serving(remembered, clock) as client:
        first = await client.get("/readyz")
        calls = proxy.received["DescribeTable"]
        answers = await asyncio.gather(*(client.get("/readyz") for _ in range(10)))
    assert first.status_code == 503
    assert {answer.status_code for answer in answers} == {503}
    assert proxy.received["DescribeTable"] == calls


async def test_with_the_memory_off_every_probe_looks(
    proxy: FaultProxy, settings: Settings, clock: FixedClock
) -> None:
    async with serving(through(proxy, settings, readyz_cache_seconds=0), clock) as client:
        for _ in range(3):
            assert (await client.get("/readyz")).status_code == 200
    assert proxy.received == {"DescribeTable": 3 * len(Table)}
