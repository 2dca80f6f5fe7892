"""The single-table collection: a partition read whole by one Query, whose items then answer
every point read and prefix query of that partition in the same request.

A request that needs several entities of one `USERS#<id>` partition would otherwise send a
Query per sort-key prefix and a BatchGetItem key per point; when the access plan chooses
the collection, the two cores hand out futures derived from the one Query instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from loaders.codec import Item
from loaders.keys import ItemKey, QueryKey
from loaders.tables import Table

T = TypeVar("T")

Partition = tuple[Table, str]


class Collected:
    """The live items of one partition, in sort-key order (DynamoDB's, which is the order
    of Python's `str` comparison, both being by code point)."""

    __slots__ = ("_by_sk", "items", "sort_key")

    def __init__(self, table: Table, items: list[Item]) -> None:
        self.items = items
        self.sort_key = table.key_names[1]
        self._by_sk: dict[str, Item] | None = None

    def point(self, key: ItemKey) -> Item | None:
        if self._by_sk is None:
            assert self.sort_key is not None
            self._by_sk = {item[self.sort_key]: item for item in self.items}
        return self._by_sk.get(key.sk) if key.sk is not None else None

    def query(self, query: QueryKey) -> list[Item]:
        assert self.sort_key is not None
        sort_key, prefix = self.sort_key, query.sk_prefix
        matching = [item for item in self.items if item[sort_key].startswith(prefix)]
        if query.newest_first:
            matching.reverse()
        return matching if query.limit is None else matching[: query.limit]


class Collections:
    """The partitions a request reads whole, shared by its two cores."""

    def __init__(self) -> None:
        # A partition's Query starts with the first read it answers, not when it is planned:
        # the plan runs in the root resolver, a tick before the field resolvers, and a Query
        # dispatched on its own then would leave those fields' other Queries for a later
        # batch, after it instead of beside it.
        self._starts: dict[Partition, Callable[[], asyncio.Future[list[Item]]]] = {}
        self._sources: dict[Partition, asyncio.Future[list[Item]]] = {}
        # One `Collected` (and its SK index) per partition, however many keys derive.
        self._collected: dict[Partition, Collected] = {}

    def __contains__(self, partition: Partition) -> bool:
        return partition in self._starts

    def add(self, partition: Partition, start: Callable[[], asyncio.Future[list[Item]]]) -> None:
        """Collect `partition`; `start` sends its Query (through the query core) when a
        read first needs it."""
        self._starts.setdefault(partition, start)

    def discard(self, partition: Partition) -> None:
        """Forget a partition's items (the request wrote to it): later loads read afresh."""
        self._starts.pop(partition, None)
        self._sources.pop(partition, None)
        self._collected.pop(partition, None)

    def derive(
        self, partition: Partition, pick: Callable[[Collected], T]
    ) -> asyncio.Future[T] | None:
        """A future of `pick` applied to the partition's items once they are in, or None
        when the partition is not collected. A failed Query fails the derived future."""
        source = self._sources.get(partition)
        if source is None:
            start = self._starts.get(partition)
            if start is None:
                return None
            source = self._sources[partition] = start()
        derived: asyncio.Future[T] = source.get_loop().create_future()
        source.add_done_callback(partial(self._settle, partition, derived, pick))
        return derived

    def _settle(
        self,
        partition: Partition,
        derived: asyncio.Future[T],
        pick: Callable[[Collected], T],
        source: asyncio.Future[list[Item]],
    ) -> None:
        if derived.done():
            return
        if source.cancelled():
            derived.cancel()
            return
        error = source.exception()
        if error is not None:
            derived.set_exception(error)
            return
        collected = self._collected.get(partition)
        if collected is None:
            collected = self._collected[partition] = Collected(partition[0], source.result())
        derived.set_result(pick(collected))
