"""The loader and writer tests run against two DynamoDB implementations: moto's server and
dynalite. Every test here that uses `dynamodb` (or `tables`, `dynamo`) runs once for each."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

import pytest

from gateway.cli.embedded import EmbeddedDynamoDB
from loaders.tables import TableNames, create_tables
from support.dynalite_server import DynaliteServer
from tests.conftest import open_test_client, unique_table_names

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

MOTO = "moto"
DYNALITE = "dynalite"
#: What dynalite does not implement (the calls are skipped there, never the tests).
DYNALITE_LACKS = "dynalite implements neither UpdateTimeToLive nor transactions"


@pytest.fixture(scope="session")
def dynalite_server() -> Iterator[DynaliteServer]:
    server = DynaliteServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session", params=[MOTO, DYNALITE])
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture(scope="session")
def endpoint_url(backend: str, request: pytest.FixtureRequest) -> str:
    server: EmbeddedDynamoDB | DynaliteServer = request.getfixturevalue(
        "moto_server" if backend == MOTO else "dynalite_server"
    )
    return server.endpoint_url


class ClientPool:
    """One client per endpoint, open until the session ends."""

    def __init__(self, stack: AsyncExitStack) -> None:
        self._stack = stack
        self._clients: dict[str, DynamoDBClient] = {}

    async def client(self, endpoint_url: str) -> DynamoDBClient:
        if endpoint_url not in self._clients:
            opened = await self._stack.enter_async_context(open_test_client(endpoint_url))
            self._clients[endpoint_url] = opened
        return self._clients[endpoint_url]


@pytest.fixture(scope="session")
async def client_pool() -> AsyncIterator[ClientPool]:
    async with AsyncExitStack() as stack:
        yield ClientPool(stack)


@pytest.fixture(scope="session")
async def dynamodb(endpoint_url: str, client_pool: ClientPool) -> DynamoDBClient:
    # The clients close once, at the session's end: a client closed when the tests move
    # from one backend to the next was closed outside the context it was opened in, and
    # left its HTTP session to the collector (an unclosed-session warning in a later test).
    return await client_pool.client(endpoint_url)


@pytest.fixture
async def tables(dynamodb: DynamoDBClient, backend: str) -> TableNames:
    """Five fresh tables for this test (TTL enabled where the backend has UpdateTimeToLive)."""
    names = unique_table_names()
    await create_tables(dynamodb, names, ttl=backend != DYNALITE, streams=backend != DYNALITE)
    return names


def skip_on_dynalite(backend: str, what: str) -> None:
    """Skip a call dynalite does not implement, saying which."""
    if backend == DYNALITE:
        pytest.skip(f"{what}: {DYNALITE_LACKS}")
