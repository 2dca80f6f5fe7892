"""The stream tests' shared set-up: moto's server only, a streams client, a quick-paced
coordinator, and `readers`: one test's tables, feed and recorder, with the lease items in
`locks` written as an earlier replica left them, read, and waited for."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import aioboto3
import orjson
import pytest

from gateway.cli.embedded import EmbeddedDynamoDB
from loaders.dynamodb import Dynamo
from loaders.live.changes import Change, ChangeFeed, MemoryChangeFeed
from loaders.live.streams import Checkpoint, LeaseCoordinator, StreamsApi, lease_key
from loaders.live.streams.reader import Pace
from loaders.tables import STREAMED_TABLES, Table, TableNames
from tests.change_recorder import Recorder
from tests.loaders.conftest import MOTO, ClientPool
from tests.loaders.live.streams.fault_streams import SyntheticStream

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


@pytest.fixture(scope="session")
def backend() -> str:
    """moto's server only: dynalite implements no DynamoDB Streams."""
    return MOTO


# The session's endpoint and client, overridden here too: the loaders' own are cached per
# `backend` parameter, and one computed under this folder's `backend` would otherwise be
# reused by a later dynalite-parametrized test (a moto client answering "dynalite").
@pytest.fixture(scope="session")
def endpoint_url(moto_server: EmbeddedDynamoDB) -> str:
    return moto_server.endpoint_url


@pytest.fixture(scope="session")
async def dynamodb(endpoint_url: str, client_pool: ClientPool) -> DynamoDBClient:
    return await client_pool.client(endpoint_url)


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


@dataclass
class Readers:
    """One test's stream readers and what they work on: the tables (the leases in `locks`),
    a feed, and all it delivered (`heard`, in order)."""

    dynamo: Dynamo
    dynamodb: DynamoDBClient
    tables: TableNames
    feed: MemoryChangeFeed = field(default_factory=MemoryChangeFeed)
    recorder: Recorder = field(default_factory=Recorder)

    def __post_init__(self) -> None:
        self.feed.listen(self.recorder)

    @property
    def heard(self) -> list[object]:
        return self.recorder.heard

    def changes(self) -> list[Change]:
        return [item for item in self.heard if isinstance(item, Change)]

    def partition_keys(self) -> list[str]:
        """The partition keys of the changes heard, in order."""
        return [change.partition_key for change in self.changes()]

    def running(
        self,
        api: StreamsApi,
        *,
        tables: Sequence[Table] = STREAMED_TABLES,
        feed: ChangeFeed | None = None,
        **options: Any,
    ) -> AbstractAsyncContextManager[LeaseCoordinator]:
        """A coordinator over `api` publishing on the feed (or `feed`), running for the block."""
        reader = coordinator(self.dynamo, api, feed or self.feed, tables=tables, **options)
        return running(reader)

    async def lease_item(self, table: Table, shard_id: str) -> dict[str, Any] | None:
        """The lease item of one shard, read consistently (None: there is none)."""
        key = {"key": {"S": lease_key(self.tables.name(table), shard_id)}}
        answer = await self.dynamodb.get_item(
            TableName=self.tables.locks, Key=key, ConsistentRead=True
        )
        item: dict[str, Any] | None = answer.get("Item")
        return item

    async def lease_data(self, table: Table, shard_id: str) -> Any:
        """The lease's data (the checkpoint) decoded; None when there is no lease item."""
        item = await self.lease_item(table, shard_id)
        return None if item is None else orjson.loads(item["data"]["B"])

    async def until_lease_data(
        self, table: Table, shard_id: str, expected: Any, seconds: float = 15.0
    ) -> None:
        """Wait until the lease's data is `expected` (None: until the item is gone): a
        reader writes its checkpoint after the publish, in its own time."""
        found = None
        for _ in range(int(seconds / 0.05)):
            found = await self.lease_data(table, shard_id)
            if found == expected:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"lease data {found!r}, not {expected!r}")

    async def put_lease(
        self,
        table: Table,
        shard_id: str,
        checkpoint: Checkpoint,
        *,
        owner: str = "EARLIER",
        released: bool = True,
        duration: str = "2s",
    ) -> None:
        """A lease item as a replica that read the shard earlier left it: released (a
        SIGTERM) by default, else still held (the replica died, or lost DynamoDB)."""
        item: dict[str, Any] = {
            "key": {"S": lease_key(self.tables.name(table), shard_id)},
            "ownerName": {"S": owner},
            "leaseDuration": {"S": duration},
            "recordVersionNumber": {"S": f"1:{owner}"},
            "data": {"B": checkpoint.encode()},
        }
        if released:
            item["isReleased"] = {"S": "1"}
        await self.dynamodb.put_item(TableName=self.tables.locks, Item=item)

    async def resumed_shard(self) -> tuple[SyntheticStream, int]:
        """A synthetic `pave` stream of one shard, `shard-1`, whose first record (`USERS#a`)
        an earlier replica read: its released lease's checkpoint is that record's sequence
        number (returned), so reading resumes after it."""
        stream = SyntheticStream()
        stream.add_shard("shard-1")
        start = stream.write("shard-1", "USERS#a")
        await self.put_lease(Table.PAVE, "shard-1", Checkpoint(sequence_number=str(start)))
        return stream, start


@pytest.fixture
def readers(dynamo: Dynamo, dynamodb: DynamoDBClient, tables: TableNames) -> Readers:
    return Readers(dynamo, dynamodb, tables)
