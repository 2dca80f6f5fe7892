"""The coherent cache's part of the lifespan (SPEC section 8): the cache on the change
feed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette

from gateway.settings import Settings
from loaders.cache import CoherentCache, FeedWatch
from loaders.changes import ChangeFeed


@asynccontextmanager
async def open_cache(app: Starlette, settings: Settings) -> AsyncIterator[CoherentCache]:
    """The cache listening to `app.state.change_feed`, as `app.state.cache`, until the
    block ends.

    The cache listens whether or not subscriptions are served; `app.state.change_feed`
    is the one the stream readers publish on (`gateway.live`, opened before)."""
    feed: ChangeFeed = app.state.change_feed
    cache = CoherentCache(
        settings.cache_max_bytes, FeedWatch(max_lag_seconds=settings.cache_max_lag_seconds)
    )
    stop_listening = feed.listen(cache)
    app.state.cache = cache
    try:
        yield cache
    finally:
        stop_listening()
        del app.state.cache
