"""What a first version does: every field of every user reads DynamoDB itself, one call
per field, nothing batched across users or fields, nothing shared."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from loaders.codec import Item, from_wire, is_live
from loaders.dynamodb import Dynamo
from loaders.keys import ItemKey, QueryKey
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.tables import Table
from loaders.user_reads import UserReads


class NaivePoints:
    """One GetItem per load."""

    def __init__(self, dynamo: Dynamo, now: datetime) -> None:
        self._dynamo = dynamo
        self._now = now

    async def load(self, key: ItemKey) -> Item | None:
        response = await self._dynamo.call(
            "get_item",
            TableName=self._dynamo.tables.name(key.table),
            Key=key.attributes(),
            ReturnConsumedCapacity="TOTAL",
        )
        wire = response.get("Item")
        item = from_wire(wire) if wire is not None else None
        return item if item is not None and is_live(item, self._now) else None

    def load_many(self, keys: Sequence[ItemKey]) -> asyncio.Future[list[Item | None]]:
        return asyncio.gather(*(self.load(key) for key in keys))

    # UserReads asks for answers: never known before the call, so always a future.
    def answer(self, key: ItemKey) -> asyncio.Future[Item | None]:
        return asyncio.ensure_future(self.load(key))

    def answer_many(self, keys: Sequence[ItemKey]) -> asyncio.Future[list[Item | None]]:
        return self.load_many(keys)


class NaiveQueries:
    """One Query per load; no collections."""

    def __init__(self, dynamo: Dynamo, now: datetime) -> None:
        self._dynamo = dynamo
        self._now = now

    async def load(self, query: QueryKey) -> list[Item]:
        return await self._dynamo.query(
            query, lambda page: [item for item in map(from_wire, page) if is_live(item, self._now)]
        )

    def answer(self, query: QueryKey) -> asyncio.Future[list[Item]]:
        return asyncio.ensure_future(self.load(query))

    def collect(self, table: Table, pk: str) -> None:
        pass


def naive_reads(dynamo: Dynamo, now: datetime) -> UserReads:
    points: Any = NaivePoints(dynamo, now)
    queries: Any = NaiveQueries(dynamo, now)
    return UserReads(cast(PointReadLoader, points), cast(QueryLoader, queries), now)
