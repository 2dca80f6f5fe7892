"""The coherent cache's part of the lifespan (SPEC section 8): the cache on the change
feed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from gateway.settings.live import LiveSettings
from loaders.cache import CoherentCache
from loaders.live.changes import ChangeFeed
from loaders.live.feed_watch import FeedWatch


@asynccontextmanager
async def open_cache(feed: ChangeFeed, settings: LiveSettings) -> AsyncIterator[CoherentCache]:
    """The cache listening to `feed` until the block ends: the one the stream readers
    publish on (`gateway.live.feed_wiring`, opened before), whether or not subscriptions
    are served."""
    cache = CoherentCache(
        settings.cache_max_bytes, FeedWatch(max_lag_seconds=settings.cache_max_lag_seconds)
    )
    stop_listening = feed.listen(cache)
    try:
        yield cache
    finally:
        stop_listening()
