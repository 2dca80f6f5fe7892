from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, cast

import aioboto3
import pytest

from loaders.changes import ChangeFeed
from loaders.dynamodb import Dynamo
from loaders.streams import LeaseCoordinator, StreamsApi
from loaders.streams.reader import Pace
from loaders.tables import STREAMED_TABLES, Table
from tests.loaders.conftest import MOTO


@pytest.fixture(scope="session")
def backend() -> str:
    """moto's server only: dynalite implements no DynamoDB Streams."""
    return MOTO


#: Quick enough for the tests, within the service's limits all the same.
TEST_PACE = Pace(min_interval=0.25, idle_interval=0.25, backoff_base=0.1, backoff_cap=0.5)


@pytest.fixture(scope="session")
async def streams_api(endpoint_url: str) -> AsyncIterator[StreamsApi]:
    async with aioboto3.Session().client(
        "dynamodbstreams", endpoint_url=endpoint_url, region_name="us-east-1"
    ) as client:
        yield cast("StreamsApi", client)


def coordinator(
    dynamo: Dynamo,
    api: StreamsApi,
    feed: ChangeFeed,
    *,
    tables: Sequence[Table] = STREAMED_TABLES,
    lease_seconds: float = 2.0,
    owner_name: str | None = None,
    observer: Any = None,
) -> LeaseCoordinator:
    return LeaseCoordinator(
        dynamo=dynamo,
        api=api,
        feed=feed,
        lease_seconds=lease_seconds,
        owner_name=owner_name,
        tables=tables,
        pace=TEST_PACE,
        observer=observer,
        tick_seconds=0.2,
        discovery_seconds=0.5,
    )


@asynccontextmanager
async def running(reader: LeaseCoordinator) -> AsyncIterator[LeaseCoordinator]:
    await reader.start()
    try:
        yield reader
    finally:
        await reader.stop()


async def until(condition: Callable[[], bool], seconds: float = 15.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")
