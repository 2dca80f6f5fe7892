"""What the point-read core and the query core share: a request's loader, its
dependencies, and an answer without a future when one is known."""

from __future__ import annotations

import asyncio
from datetime import datetime
from functools import partial
from typing import Self, TypeVar

from aiodataloader import DataLoader

from loaders.answers import Found, done
from loaders.cache import MISS, CacheReader, Miss
from loaders.collections import Collected, Collections
from loaders.dynamodb import Dynamo
from loaders.expiry import Expiries
from loaders.keys import ItemKey, QueryKey

__all__ = ["RequestLoader"]

K = TypeVar("K", bound=ItemKey | QueryKey)
V = TypeVar("V")


class RequestLoader(DataLoader[K, V]):
    """A loader of one request at its `now`: its futures kept by key (`_futures`), the
    partitions it reads whole shared through `collections`, and the coherent `cache`.

    What the cache answers is kept by key too (`_known`), as a value: `answer` gives it
    without making a future (the compiled operation's warm reads), `load` makes one only
    when asked (graphql-core's path awaits). Either way the request sees one answer per
    key until it `clear`s it."""

    def __init__(
        self,
        dynamo: Dynamo,
        now: datetime,
        collections: Collections | None = None,
        *,
        consistent: bool = False,
        cache: CacheReader | None = None,
        expiries: Expiries | None = None,
    ) -> None:
        self._futures: dict[K, asyncio.Future[V]] = {}
        super().__init__(loop=asyncio.get_running_loop(), cache_map=self._futures)
        self._dynamo = dynamo
        self._now = now
        #: `now` in whole seconds, as a `ttl` Number compares with it (the query core's check).
        self._now_seconds = int(now.timestamp())
        self._collections = collections or Collections()
        self._consistent = consistent
        self._coherent = cache
        self._expiries = expiries
        self._known: dict[K, V] = {}

    def answer(self, key: K) -> Found[V]:
        """The answer now when it is known (the coherent cache holds it, or this request
        read it already), without a future to await; otherwise the future of its load."""
        future = self._futures.get(key)
        if future is None:
            known = self._known_answer(key)
            if not isinstance(known, Miss):
                return known
            future = self.load_unknown(key)
        return future.result() if done(future) else future

    def load(self, key: K) -> asyncio.Future[V]:
        future = self._futures.get(key)
        if future is None:
            known = self._known_answer(key)
            if isinstance(known, Miss):
                return self.load_unknown(key)
            future = self._futures[key] = self.loop.create_future()
            future.set_result(known)
        return future

    def _known_answer(self, key: K) -> V | Miss:
        known: V | Miss = self._known.get(key, MISS)
        if isinstance(known, Miss) and self._coherent is not None:
            held = self._collections.held.get((key.table, key.pk))
            if held is not None:
                known = self.pick(held, key)
                self._coherent.answered()
            else:
                known = self.cached(self._coherent, key)
            if not isinstance(known, Miss):
                self._known[key] = known
        return known

    def cached(self, cache: CacheReader, key: K) -> V | Miss:
        """What the coherent cache holds for `key`."""
        raise NotImplementedError

    def pick(self, collected: Collected, key: K) -> V:
        """`key`'s answer, picked from its partition's items, read whole."""
        raise NotImplementedError

    def load_unknown(self, key: K) -> asyncio.Future[V]:
        """The future of `key`'s load, which neither this request nor the cache knows yet:
        picked from its partition when the request reads it whole, batched otherwise."""
        derived = self._collections.derive((key.table, key.pk), partial(self.pick, key=key))
        if derived is None:
            return self.batched(key)
        self._futures[key] = derived
        return derived

    def batched(self, key: K) -> asyncio.Future[V]:
        """`key` loaded with the tick's other keys (`batch_load_fn`)."""
        return super().load(key)

    def clear(self, key: K) -> Self:
        self._known.pop(key, None)
        return super().clear(key)

    def clear_all(self) -> Self:
        self._known.clear()
        return super().clear_all()
