from __future__ import annotations

import dataclasses
import gc
import itertools
import os
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import aioboto3
import pytest
from aiobotocore.config import AioConfig

from gateway.cli.embedded import EmbeddedDynamoDB
from gateway.resources import open_dynamo
from gateway.settings import Settings
from loaders.codec import Item, from_wire
from loaders.collections import Read, Undecoded
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames, create_tables
from support.faults import FaultProxy
from support.fixed_clock import FixedClock
from support.redis_server import RedisServer
from support.serial_moto import SerialMotoServer

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

# Credentials for the local servers only; never reach AWS from the tests.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

_table_suffixes = itertools.count()

NOW = datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)


def unique_table_names() -> TableNames:
    """The tables under names no other test uses (the servers live for the session)."""
    suffix = f"-t{next(_table_suffixes)}"
    return TableNames(
        pave="site-pave" + suffix,
        income_detection="site-incomedetection" + suffix,
        datacapture="site-fmdatacapture" + suffix,
        balance_settings="user-balance-settings" + suffix,
        locks="locks" + suffix,
        idempotency="insight-gateway-idempotency" + suffix,
    )


@asynccontextmanager
async def open_test_client(endpoint_url: str) -> AsyncIterator[DynamoDBClient]:
    """A client as the gateway opens one (its session and parser), on a local server."""
    session = aioboto3.Session()
    config = AioConfig(
        max_pool_connections=64, retries={"mode": "standard", "total_max_attempts": 3}
    )
    async with session.client(
        "dynamodb", endpoint_url=endpoint_url, region_name="us-east-1", config=config
    ) as client:
        yield client


@pytest.fixture(scope="session")
def moto_server() -> Iterator[EmbeddedDynamoDB]:
    server = EmbeddedDynamoDB()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def endpoint_url(moto_server: EmbeddedDynamoDB) -> str:
    return moto_server.endpoint_url


@pytest.fixture(scope="session")
def serial_moto() -> Iterator[SerialMotoServer]:
    """moto's server one request at a time (support/serial_moto.py): the backend for
    transactions under concurrency, which the threaded server does not apply atomically."""
    server = SerialMotoServer()
    server.start()
    yield server
    server.stop()


@dataclasses.dataclass(frozen=True)
class AtomicBackend:
    """Fresh tables on the serial moto server, with a client, a `Dynamo` and settings."""

    dynamodb: DynamoDBClient
    tables: TableNames
    dynamo: Dynamo
    settings: Settings


@pytest.fixture
async def atomic(serial_moto: SerialMotoServer) -> AsyncIterator[AtomicBackend]:
    async with open_test_client(serial_moto.endpoint_url) as client:
        names = unique_table_names()
        await create_tables(client, names)
        settings = Settings(dynamodb_endpoint_url=serial_moto.endpoint_url, tables=names)
        yield AtomicBackend(client, names, Dynamo(client, names, max_concurrency=64), settings)


@pytest.fixture(scope="session")
async def dynamodb(endpoint_url: str) -> AsyncIterator[DynamoDBClient]:
    """One client for the whole session, as the gateway keeps one per process (and parses
    as the gateway's does)."""
    async with open_test_client(endpoint_url) as client:
        yield client


@pytest.fixture
async def tables(dynamodb: DynamoDBClient) -> TableNames:
    """Five fresh tables for this test, under names no other test uses."""
    names = unique_table_names()
    await create_tables(dynamodb, names)
    return names


class CallCounter:
    """Counts the DynamoDB operations a client sends, by name, with their API parameters
    (botocore's `before-parameter-build` event: once per API call, retries not counted)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.requests: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, model: Any, params: Any, **_: Any) -> None:
        self.calls[model.name] += 1
        self.requests.append((model.name, dict(params)))

    def reset(self) -> None:
        self.calls.clear()
        self.requests.clear()

    @property
    def total(self) -> int:
        return sum(self.calls.values())


@pytest.fixture
def dynamodb_calls(dynamodb: DynamoDBClient) -> Iterator[CallCounter]:
    counter = CallCounter()
    dynamodb.meta.events.register("before-parameter-build.dynamodb", counter)
    yield counter
    dynamodb.meta.events.unregister("before-parameter-build.dynamodb", counter)


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The cyclic collector off for the test, after one full pass: whatever the test leaves
    alive is what reference counting left, nothing a collection would still free."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture
def clock() -> FixedClock:
    """The suite's "now": 2026-12-02T11:31:28Z, the contract's example instant."""
    return FixedClock(NOW)


@pytest.fixture
def settings(tables: TableNames, endpoint_url: str) -> Settings:
    return Settings(dynamodb_endpoint_url=endpoint_url, tables=tables)


@pytest.fixture
def dynamo(dynamodb: DynamoDBClient, tables: TableNames) -> Dynamo:
    return Dynamo(dynamodb, tables, max_concurrency=64)


def decoded(read: Read) -> Item:
    """An item as a loader gave it, decoded (one of a partition read whole is `Undecoded`)."""
    return from_wire(read.wire) if isinstance(read, Undecoded) else read


async def put_wire_items(
    dynamodb: DynamoDBClient, table_name: str, items: list[dict[str, Any]]
) -> None:
    """Write items in DynamoDB's wire form exactly as given (the contract's bytes)."""
    for item in items:
        await dynamodb.put_item(TableName=table_name, Item=item)


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """Debian's redis-server, one per test module."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def through_proxy(settings: Settings, proxy: FaultProxy) -> AsyncIterator[Dynamo]:
    """The process's Dynamo through the requesting package's fault proxy (3 attempts)."""
    proxied = dataclasses.replace(
        settings, dynamodb_endpoint_url=proxy.endpoint_url, dynamodb_max_attempts=3
    )
    async with open_dynamo(proxied) as dynamo:
        yield dynamo
