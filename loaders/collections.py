"""The single-table collection: a partition read whole by one Query, whose items then answer
every point read and prefix query of that partition in the same request.

A request that needs several entities of one `USERS#<id>` partition would otherwise send a
Query per sort-key prefix and a BatchGetItem key per point; when the access plan chooses
the collection, the two cores hand out futures derived from the one Query instead, or,
when the coherent cache holds the partition whole, answer from its items at once (`held`).
"""

from __future__ import annotations

import asyncio
import sys
from bisect import bisect_left
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, TypeAlias, TypeVar

from loaders.codec import Item, WireItem
from loaders.keys import ItemKey, QueryKey
from loaders.table import Table

__all__ = ["Collected", "Collections", "Kept", "Partition", "Read", "T", "Undecoded"]

T = TypeVar("T")

Partition = tuple[Table, str]


class Undecoded:
    """An item a Query answered (a partition read whole, or one Query), as it came: `row_of`
    decodes it when a rule first builds a row of it, and keeps the row; a rule may read one
    attribute of its `wire` first, so that the items it drops are never decoded."""

    __slots__ = ("rows", "wire")

    def __init__(self, wire: WireItem) -> None:
        self.wire = wire
        self.rows: dict[object, Any] = {}


#: What a read gives: an item decoded, or one a Query answered, still undecoded.
Read: TypeAlias = Item | Undecoded


class Kept(list[Read]):
    """A Query's items from a partition that requests share (the coherent cache's), with
    the rows built of them kept beside them, by row builder (`loaders.cache.items.
    kept_rows`): a warm read takes a list's rows at once. Callers never change either."""

    __slots__ = ("rows",)

    def __init__(self, items: Iterable[Read]) -> None:
        super().__init__(items)
        self.rows: dict[object, list[Any]] = {}


class Collected:
    """The live items of one partition, in sort-key order (DynamoDB's, which is the order
    of Python's `str` comparison, both being by code point).

    They arrive in wire form and are handed out `Undecoded`, each decoded only when a rule
    builds its row: a full User reads ~110 of its partition's items, a selection of two
    fields a handful."""

    __slots__ = ("_answers", "_by_sk", "_kept", "_read", "_sort_keys", "_wire")

    def __init__(self, table: Table, wire_items: list[WireItem]) -> None:
        sort_key = table.key_names[1]
        assert sort_key is not None
        self._wire = wire_items
        self._sort_keys: list[str] = [item[sort_key]["S"] for item in wire_items]
        self._read: list[Read | None] = [None] * len(wire_items)
        self._by_sk: dict[str, int] | None = None
        # Each Query's answer, once picked (the coherent cache's partitions answer the
        # same Queries request after request; a few lists of references, within the rows'
        # share the cache charges). Callers never change an answer's list.
        self._answers: dict[QueryKey, list[Read]] = {}
        # The coherent cache's, shared by requests: its answers are `Kept`.
        self._kept = False

    @classmethod
    def of_items(cls, table: Table, items: list[Item], *, shared: bool = False) -> Collected:
        """A partition already decoded: the coherent cache's (`shared` by many requests), or
        the read of a request whose items the cache took."""
        collected = cls(table, [])
        sort_key = table.key_names[1]
        assert sort_key is not None
        collected._sort_keys = [item[sort_key] for item in items]
        collected._read = list(items)
        collected._kept = shared
        return collected

    def __len__(self) -> int:
        return len(self._sort_keys)

    @property
    def sort_keys(self) -> list[str]:
        return self._sort_keys

    def _item(self, index: int) -> Read:
        read = self._read[index]
        if read is None:
            read = self._read[index] = Undecoded(self._wire[index])
        return read

    def point(self, key: ItemKey) -> Read | None:
        if self._by_sk is None:
            self._by_sk = {sk: index for index, sk in enumerate(self._sort_keys)}
        index = self._by_sk.get(key.sk) if key.sk is not None else None
        return self._item(index) if index is not None else None

    def query(self, query: QueryKey) -> list[Read]:
        answer = self._answers.get(query)
        if answer is None:
            answer = self._answers[query] = self._pick(query)
        return answer

    def _pick(self, query: QueryKey) -> list[Read]:
        # The keys with the prefix are one run of the sorted keys: from the prefix's place
        # up to that of the first text after them all (its last character's successor).
        prefix, keys = query.sk_prefix, self._sort_keys
        start = bisect_left(keys, prefix)
        if not prefix:
            end = len(keys)
        elif ord(prefix[-1]) < sys.maxunicode:
            end = bisect_left(keys, prefix[:-1] + chr(ord(prefix[-1]) + 1), start)
        else:
            end = next(
                (i for i in range(start, len(keys)) if not keys[i].startswith(prefix)), len(keys)
            )
        matching = range(end - 1, start - 1, -1) if query.newest_first else range(start, end)
        if query.limit is not None:
            matching = matching[: query.limit]
        picked = [self._item(index) for index in matching]
        return Kept(picked) if self._kept else picked


class Collections:
    """The partitions a request reads whole, shared by its two cores."""

    def __init__(self) -> None:
        # Each partition's one Query, sent with the request's other reads (the plan collects
        # a partition in the same pass that asks for its reads).
        # Its items in wire form, or decoded (`decoded`).
        self._sources: dict[Partition, asyncio.Future[list[Any]]] = {}
        # One `Collected` (and its SK index) per partition, however many keys derive.
        self._collected: dict[Partition, Collected] = {}
        # Partitions whose Query answers decoded items (the coherent cache's reads).
        self._decoded: set[Partition] = set()
        #: Partitions taken whole from the coherent cache: read once, as a Query would
        #: read them, and answering every read of them at once, without a future.
        self.held: dict[Partition, Collected] = {}

    def add(
        self,
        partition: Partition,
        start: Callable[[], asyncio.Future[list[Any]]],
        *,
        decoded: bool = False,
    ) -> None:
        """Collect `partition`: `start` sends its Query (through the query core), now,
        unless it is collected already. `decoded`: its items come decoded already."""
        if partition in self._sources:
            return
        self._sources[partition] = start()
        if decoded:
            self._decoded.add(partition)

    def hold(self, partition: Partition, collected: Collected) -> None:
        """Collect `partition` from items already in (the coherent cache's)."""
        if partition not in self._sources:
            self.held.setdefault(partition, collected)

    def discard(self, partition: Partition) -> None:
        """Forget a partition's items (the request wrote to it): later loads read afresh."""
        self._sources.pop(partition, None)
        self._collected.pop(partition, None)
        self._decoded.discard(partition)
        self.held.pop(partition, None)

    def clear(self) -> None:
        """Forget every partition (the request is over)."""
        self._sources.clear()
        self._collected.clear()
        self._decoded.clear()
        self.held.clear()

    def derive(
        self, partition: Partition, pick: Callable[[Collected], T]
    ) -> asyncio.Future[T] | None:
        """A future of `pick` applied to the partition's items once they are in, or None
        when the partition is not collected. A failed Query fails the derived future."""
        source = self._sources.get(partition)
        if source is None:
            return None
        derived: asyncio.Future[T] = source.get_loop().create_future()
        source.add_done_callback(partial(self._settle, partition, derived, pick))
        return derived

    def _settle(
        self,
        partition: Partition,
        derived: asyncio.Future[T],
        pick: Callable[[Collected], T],
        source: asyncio.Future[list[Any]],
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
            table, items = partition[0], source.result()
            built = Collected.of_items if partition in self._decoded else Collected
            collected = self._collected[partition] = built(table, items)
        derived.set_result(pick(collected))
