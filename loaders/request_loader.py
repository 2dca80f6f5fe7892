"""What the point-read core and the query core share: a request's loader, its
dependencies, and an answer without a future when one is known."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TypeVar

from aiodataloader import DataLoader

from loaders.answers import Found, done
from loaders.cache import CacheReader
from loaders.collections import Collections
from loaders.dynamodb import Dynamo
from loaders.expiry import Expiries

__all__ = ["RequestLoader"]

K = TypeVar("K")
V = TypeVar("V")


class RequestLoader(DataLoader[K, V]):
    """A loader of one request at its `now`: its futures kept by key (`_futures`), the
    partitions it reads whole shared through `collections`, and the coherent `cache`."""

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

    def answer(self, key: K) -> Found[V]:
        """The answer now when it is known (the coherent cache holds it, or this request
        read it already), without a future to await; otherwise the future of its load."""
        future = self.load(key)
        return future.result() if done(future) else future
