"""The bench's stand-in for idle stream readers: shard positions, and nothing else.

The cached rows need a whole change feed (the cache is bypassed without one), but the
bench runs over dynalite, which has no DynamoDB Streams. Nothing writes to the tables
while the bench measures, so a stream reader would publish only heartbeats; this task
publishes the same heartbeat (every streamed table's one "shard" current as of now,
twice a second) on the gateway's own feed. It says nothing of how fast real readers keep
up: that is the stream readers' figure, not the cache's."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from starlette.applications import Starlette

from gateway.state import opened_resources
from loaders.cache import STREAMED_TABLES
from loaders.live.changes import ChangeFeed, ShardPosition

INTERVAL_SECONDS = 0.5


async def heartbeat(feed: ChangeFeed) -> None:
    while True:
        for table in STREAMED_TABLES:
            await feed.publish_position(ShardPosition(table, "bench-heartbeat", time.time()))
        await asyncio.sleep(INTERVAL_SECONDS)


def with_feed_heartbeat(app: Starlette) -> None:
    """Run `heartbeat` on the app's change feed while the app's lifespan runs."""
    # Starlette types its lifespan as yielding None or a state mapping; the gateway's is None.
    inner: Callable[[Starlette], AbstractAsyncContextManager[Any]] = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with inner(app):
            feed = opened_resources(app).change_feed
            assert feed is not None
            beating = asyncio.create_task(heartbeat(feed))
            try:
                yield
            finally:
                beating.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await beating

    app.router.lifespan_context = lifespan
