"""The loader and writer tests run against two DynamoDB implementations: moto's server and
dynalite. Every test here that uses `dynamodb` (or `tables`, `dynamo`) runs once for each."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest

from gateway.cli.embedded import EmbeddedDynamoDB
from loaders.tables import TableNames, create_tables
from tests.conftest import open_test_client, unique_table_names
from tests.dynalite_server import DynaliteServer

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


@pytest.fixture(scope="session")
async def dynamodb(endpoint_url: str) -> AsyncIterator[DynamoDBClient]:
    async with open_test_client(endpoint_url) as client:
        yield client


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
