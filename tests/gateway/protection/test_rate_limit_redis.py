"""Budgets in a real redis-server (Debian's, on a free loopback port): two gateway
processes share one budget, another principal keeps its own; Redis killed mid-test and
started again (fail open by default, 503 when failing closed), with a bounded warning and a
counter, and budgets applying again without a restart."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import timedelta

import httpx
import pytest

from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.clock import SystemClock
from support.fixed_clock import FixedClock
from support.http_client import OTHER_USER, SECRET, gateway_client
from support.metrics_text import value
from support.processes import free_port
from support.redis_server import RedisServer
from tests.conftest import CallCounter
from tests.environment import table_variables
from tests.gateway.protection.test_rate_limit import ONE, THREE, bearer, remaining

STARTUP_SECONDS = 30.0


@pytest.fixture
def redis(redis_server: RedisServer) -> Iterator[RedisServer]:
    """The module's Redis with no budget in it, running again after the test whatever it did."""
    redis_server.flush()
    yield redis_server
    if not redis_server._answers():
        redis_server.start()


@asynccontextmanager
async def gateway_process(settings: Settings, environ: dict[str, str]) -> AsyncIterator[str]:
    """`uvicorn --factory gateway.asgi:create_app_from_environ` on a free loopback port, as the
    image runs it; yields its base URL once /healthz answers."""
    port = free_port()
    env = {
        **os.environ,
        "INSIGHT_DYNAMODB_ENDPOINT_URL": settings.dynamodb_endpoint_url or "",
        **table_variables(settings.tables),
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        **environ,
    }
    command = [sys.executable, "-m", "uvicorn", "--factory", "gateway.asgi:create_app_from_environ"]
    process = await asyncio.create_subprocess_exec(
        *command,
        *("--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base) as client:
            deadline = asyncio.get_running_loop().time() + STARTUP_SECONDS
            while True:
                try:
                    if (await client.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.returncode is not None or asyncio.get_running_loop().time() > deadline:
                    raise RuntimeError("the gateway process did not start")
                await asyncio.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), timeout=10)
        except TimeoutError:
            process.kill()
            await process.wait()


async def test_two_gateway_processes_share_one_budget(
    settings: Settings, redis: RedisServer
) -> None:
    environ = {"INSIGHT_RATE_LIMIT_STORAGE_URI": redis.uri, "INSIGHT_RATE_LIMIT_USER": "5/minute"}
    clock = SystemClock()  # the processes check tokens against the real time
    user = {"Authorization": f"Bearer {mint_token(SECRET, 'u-1', [], timedelta(hours=1), clock)}"}
    other = {
        "Authorization": f"Bearer {mint_token(SECRET, OTHER_USER, [], timedelta(hours=1), clock)}"
    }
    async with (
        gateway_process(settings, environ) as first,
        gateway_process(settings, environ) as second,
        httpx.AsyncClient() as client,
    ):
        spent = await client.post(f"{first}/graphql", json={"query": THREE}, headers=user)
        refused = await client.post(f"{second}/graphql", json={"query": THREE}, headers=user)
        fits = await client.post(f"{second}/graphql", json={"query": ONE}, headers=user)
        others = await client.post(f"{first}/graphql", json={"query": THREE}, headers=other)
    assert spent.status_code == 200
    assert remaining(spent.headers) == 2
    assert refused.status_code == 429  # the other process knows what the first one charged
    assert refused.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
    assert fits.status_code == 200
    assert remaining(fits.headers) == 1
    assert others.status_code == 200
    assert remaining(others.headers) == 2


def storage_errors(metrics: str) -> float:
    return value(metrics, "gateway_rate_limit_storage_errors_total")


async def test_redis_down_fails_open_then_budgets_apply_again(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    redis: RedisServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="gateway.rate_limit")
    async with gateway_client(
        settings, dynamo, clock, rate_limit_storage_uri=redis.uri, rate_limit_user="5/minute"
    ) as client:
        before = await client.post("/graphql", json={"query": THREE}, headers=bearer(clock))
        redis.stop()
        down = [
            await client.post("/graphql", json={"query": THREE}, headers=bearer(clock))
            for _ in range(4)
        ]
        during = (await client.get("/metrics")).text
        redis.start()  # empty: no persistence, so every budget is full again
        back = [
            await client.post("/graphql", json={"query": THREE}, headers=bearer(clock))
            for _ in range(2)
        ]
    assert remaining(before.headers) == 2
    # Served without budgets: the policy is known, what is left is not.
    assert [answer.status_code for answer in down] == [200] * 4
    assert all("errors" not in answer.json() for answer in down)
    assert all("RateLimit" not in answer.headers for answer in down)
    assert down[0].headers["RateLimit-Policy"] == '"user";q=5;w=60'
    assert storage_errors(during) == 4
    warnings = [r.getMessage() for r in caplog.records if r.name == "gateway.rate_limit"]
    assert len(warnings) == 2  # one while it lasted, one when it came back
    assert "answering without budgets" in warnings[0]
    assert "answers again after 4 failure(s)" in warnings[1]
    assert [answer.status_code for answer in back] == [200, 429]


async def test_redis_down_fails_closed_when_told_to(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    redis: RedisServer,
    dynamodb_calls: CallCounter,
) -> None:
    async with gateway_client(
        settings,
        dynamo,
        clock,
        rate_limit_storage_uri=redis.uri,
        rate_limit_fail_open=False,
    ) as client:
        served = await client.post("/graphql", json={"query": ONE}, headers=bearer(clock))
        redis.stop()
        calls_before = dynamodb_calls.total
        refused = await client.post("/graphql", json={"query": ONE}, headers=bearer(clock))
        calls_of_refusal = dynamodb_calls.total - calls_before
        redis.start()
        again = await client.post("/graphql", json={"query": ONE}, headers=bearer(clock))
    assert served.status_code == 200
    assert refused.status_code == 503
    assert calls_of_refusal == 0
    assert refused.json() == {
        "errors": [
            {
                "message": "The rate limiter is unavailable; try again",
                "extensions": {"code": "INTERNAL_SERVER_ERROR"},
            }
        ]
    }
    assert again.status_code == 200


async def test_a_hung_redis_costs_a_request_its_timeout_not_its_answer(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, redis: RedisServer
) -> None:
    async with gateway_client(
        settings, dynamo, clock, rate_limit_storage_uri=redis.uri, rate_limit_user="5/minute"
    ) as client:
        await client.post("/graphql", json={"query": ONE}, headers=bearer(clock))
        redis.pause()
        try:
            hung = await client.post("/graphql", json={"query": ONE}, headers=bearer(clock))
            metrics = (await client.get("/metrics")).text
        finally:
            redis.resume()
        after = await client.post("/graphql", json={"query": ONE}, headers=bearer(clock))
    assert hung.status_code == 200
    assert "RateLimit" not in hung.headers
    assert storage_errors(metrics) == 1
    # Budgets apply again. The hung charge counts too: it was sent before the gateway
    # stopped waiting, and Redis applied it when it woke up.
    assert remaining(after.headers) == 2
