"""`open_live_data`: the change feed (`INSIGHT_CHANGE_FEED_URI`), the DynamoDB Streams client
and the lease coordinator that reads the streamed tables' shards into the feed, for the life
of the process; everything stopped, and every lease released, on the way out."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from prometheus_client import CollectorRegistry

from gateway.observability.stream_metrics import StreamMetrics
from gateway.resources import open_streams
from gateway.settings.live import LiveSettings
from loaders.dynamodb import Dynamo
from loaders.live.changes import ChangeFeed
from loaders.live.changes.factory import open_change_feed
from loaders.live.streams import LeaseCoordinator

log = logging.getLogger("gateway.streams")


@dataclass(frozen=True, slots=True)
class LiveData:
    #: What subscriptions and the cache `listen()` to.
    feed: ChangeFeed
    coordinator: LeaseCoordinator


@asynccontextmanager
async def open_live_data(
    settings: LiveSettings, dynamo: Dynamo, registry: CollectorRegistry, owner_name: str
) -> AsyncIterator[LiveData]:
    feed = open_change_feed(settings.change_feed_uri)
    await feed.start()
    try:
        async with open_streams(settings) as api:
            holder: list[LeaseCoordinator] = []
            metrics = StreamMetrics(
                registry, settings.tables, feed, lambda: holder[0].held if holder else 0
            )
            coordinator = LeaseCoordinator(
                dynamo=dynamo,
                api=api,
                feed=feed,
                lease_seconds=settings.stream_lease_seconds,
                owner_name=owner_name,
                observer=metrics,
            )
            holder.append(coordinator)
            await coordinator.start()
            log.info(
                "reading the tables' streams as %s; change feed %s",
                owner_name,
                settings.change_feed_uri.split("@")[-1],
            )
            try:
                yield LiveData(feed, coordinator)
            finally:
                await coordinator.stop()
    finally:
        await feed.close()
