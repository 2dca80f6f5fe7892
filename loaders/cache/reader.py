"""`CacheReader`: one request's view of the coherent cache, at the request's `now`."""

from __future__ import annotations

from datetime import datetime

from loaders.cache.coherent import MISS, CoherentCache, Miss
from loaders.call_log import CallLog
from loaders.codec import Item
from loaders.collections import Collected, Read
from loaders.keys import ItemKey, QueryKey
from loaders.tables import Table


class CacheReader:
    """What the two batching cores ask the cache, for one request.

    `consistent` reads (a subscription's re-read) never answer from the cache; they read
    DynamoDB strongly consistently and refresh it. `log` is the request's `CallLog`, whose
    `cachedReads` counts the reads the cache answered."""

    __slots__ = ("cache", "consistent", "log", "now_seconds")

    def __init__(
        self,
        cache: CoherentCache,
        now: datetime,
        log: CallLog | None = None,
        *,
        consistent: bool = False,
    ) -> None:
        self.cache = cache
        self.now_seconds = int(now.timestamp())
        self.log = log
        self.consistent = consistent

    def _hit(self) -> None:
        if self.log is not None:
            self.log.cached_reads = (self.log.cached_reads or 0) + 1

    def point(self, key: ItemKey) -> Read | Miss | None:
        if self.consistent or not self.cache.usable():
            return MISS
        found = self.cache.point(key, self.now_seconds)
        if found is not MISS:
            self._hit()
        return found

    def query(self, query: QueryKey) -> list[Read] | Miss:
        if self.consistent or not self.cache.usable():
            return MISS
        found = self.cache.query(query, self.now_seconds)
        if not isinstance(found, Miss):
            self._hit()
        return found

    def whole(self, table: Table, pk: str) -> Collected | None:
        """The partition's items, when the cache holds it whole: the request reads it once,
        as it would read it from DynamoDB, and answers each of its reads from them,
        counting each as the cache's (`answered`)."""
        if self.consistent or self.cache.bypass_reason() is not None:
            return None
        return self.cache.whole(table, pk, self.now_seconds)

    def answered(self) -> None:
        self.cache.hits += 1
        self._hit()

    def begin(self) -> int | None:
        return self.cache.begin()

    def store_whole(self, version: int | None, table: Table, pk: str, items: list[Item]) -> None:
        self.cache.store_whole(version, table, pk, self.now_seconds, items)

    def store_points(self, version: int | None, found: dict[ItemKey, Item | None]) -> None:
        self.cache.store_points(version, self.now_seconds, found)

    def store_query(self, version: int | None, query: QueryKey, items: list[Item]) -> None:
        self.cache.store_query(version, self.now_seconds, query, items)
