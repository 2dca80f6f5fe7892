"""The query core: every Query of a request by (table, PK, SK prefix, order, limit)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from aiodataloader import DataLoader

from loaders.codec import Item, is_live
from loaders.dynamodb import Dynamo
from loaders.keys import QueryKey


class QueryLoader(DataLoader[QueryKey, list[Item]]):
    """Loads the live items of one Query; equal queries of a request are sent once, and all
    queries of a tick are sent concurrently. A failed query fails only its own loads."""

    def __init__(self, dynamo: Dynamo, now: datetime) -> None:
        super().__init__(loop=asyncio.get_running_loop())
        self._dynamo = dynamo
        self._now = now

    def _keep(self, item: Item) -> bool:
        return is_live(item, self._now)

    async def batch_load_fn(  # type: ignore[override]
        self, queries: Sequence[QueryKey]
    ) -> list[list[Item] | BaseException]:
        return await asyncio.gather(
            *(self._dynamo.query(query, self._keep) for query in queries),
            return_exceptions=True,
        )
