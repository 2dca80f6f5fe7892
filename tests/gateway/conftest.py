"""Fixtures the gateway's tests share: the fault proxy in front of moto, and Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.faults import FaultProxy, fault_proxy
from tests.redis_server import RedisServer


@pytest.fixture
async def proxy(endpoint_url: str) -> AsyncIterator[FaultProxy]:
    """The suite's fault proxy in front of moto, for one test."""
    async with fault_proxy(endpoint_url) as proxy:
        yield proxy


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """Debian's redis-server, one per test module."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()
