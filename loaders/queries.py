"""The query core: every Query of a request by (table, PK, SK prefix, order, limit)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from decimal import Decimal
from functools import partial
from typing import Any

from loaders.cache import CacheReader, Miss
from loaders.codec import WireItem, from_wire, is_live
from loaders.collections import Collected, Read, Undecoded
from loaders.keys import QueryKey
from loaders.request_loader import RequestLoader
from loaders.tables import Table

__all__ = ["QueryLoader"]


class QueryLoader(RequestLoader[QueryKey, list[Read]]):
    """Loads the live items of one Query; equal queries of a request are sent once, and all
    queries of a tick are sent concurrently. A failed query fails only its own loads.

    `collect` reads a whole partition with one Query; every later query of that partition
    is answered from its items (filtered by prefix, ordered, limited) without a call.
    `consistent`: strongly consistent Queries; `expiries`: note the `ttl` of every live
    item read. With the coherent cache (`cache`), a Query (or a partition read whole) it
    holds is answered at once, and every one read is stored."""

    def collect(self, table: Table, pk: str) -> None:
        """Read the partition `pk` of `table` whole (once per request), for this loader and
        the point-read core sharing its `collections`. Call it before the partition's
        other loads, in the same tick, so that they derive from it."""
        if self._coherent is not None:
            held = self._coherent.whole(table, pk)
            if held is not None:
                self._collections.hold((table, pk), held)
                return
        whole = QueryKey(table, pk, whole=True)
        self._collections.add(
            (table, pk),
            lambda: self.batched(whole),
            decoded=self._coherent is not None,
        )

    def forget_partition(self, table: Table, pk: str) -> None:
        """After a write to the partition: drop its collection and every cached Query."""
        self._collections.discard((table, pk))
        self.clear_all()

    def cached(self, cache: CacheReader, key: QueryKey) -> list[Read] | Miss:
        return cache.query(key)

    def pick(self, collected: Collected, key: QueryKey) -> list[Read]:
        return collected.query(key)

    def forget_collections(self) -> None:
        """Drop every collected partition's items (shared with the point-read core)."""
        self._collections.clear()

    def _live(self, query: QueryKey, items: list[WireItem]) -> list[WireItem]:
        """The items of a page not expired at the request's start (is_live's comparison,
        without decoding an item to read one Number); the earliest expiry kept is noted."""
        now, earliest = self._now_seconds, None
        live = []
        for item in items:
            ttl = item.get("ttl")
            if ttl is None:
                live.append(item)
            elif len(ttl) == 1 and "N" in ttl:
                # Whole seconds, as TTLs are written, compared as an int; any other Number
                # (a fraction, an exponent, more digits than `int` parses) as a Decimal.
                text = ttl["N"]
                expires = int(text) if len(text) < 19 and text.isdecimal() else Decimal(text)
                if expires > now:
                    live.append(item)
                    if earliest is None or expires < earliest:
                        earliest = expires
            elif is_live(from_wire({"ttl": ttl}), self._now):
                live.append(item)
        if earliest is not None and self._expiries is not None:
            self._expiries.note(earliest, query.table, query.pk)
        return live

    async def batch_load_fn(  # type: ignore[override]
        self, queries: Sequence[QueryKey]
    ) -> list[list[Any] | BaseException]:
        version = self._coherent.begin() if self._coherent is not None else None
        answers: list[list[Any] | BaseException] = await asyncio.gather(
            *(
                self._dynamo.query(query, partial(self._live, query), consistent=self._consistent)
                for query in queries
            ),
            return_exceptions=True,
        )
        for index, (query, answer) in enumerate(zip(queries, answers, strict=True)):
            if isinstance(answer, BaseException):
                continue
            if self._coherent is not None:
                # Decoded whole once, for this request and the cache's later ones.
                answers[index] = decoded = [from_wire(item) for item in answer]
                if query.whole:
                    self._coherent.store_whole(version, query.table, query.pk, decoded)
                else:
                    self._coherent.store_query(version, query, decoded)
            elif not query.whole:  # a collection wraps its own
                answers[index] = [Undecoded(item) for item in answer]
        return answers
