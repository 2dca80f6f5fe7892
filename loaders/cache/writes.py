"""`WritePublisher`: what follows each of the gateway's own writes.

The written partitions are dropped from this replica's cache before the mutation answers
(a later request of this replica reads them afresh), and published on the change feed at
once, so that the other replicas drop theirs without waiting for the stream; the stream's
own record of the write drops them again when it comes (which also clears a read that an
eventually consistent replica of DynamoDB answered from before the write).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from loaders.cache.coherent import CoherentCache
from loaders.entities import STREAMED_TABLES
from loaders.live.changes import Change, ChangeFeed
from loaders.tables import Table

logger = logging.getLogger("gateway.cache")


class WritePublisher:
    """Per process (from the lifespan): the cache to drop from and the feed to publish
    on, either absent. Without both it does nothing."""

    def __init__(self, cache: CoherentCache | None = None, feed: ChangeFeed | None = None) -> None:
        self.cache = cache
        self.feed = feed

    async def wrote(self, partitions: Iterable[tuple[Table, str]]) -> None:
        """The partitions were written, or a write to them failed (it may have been
        applied, or, a condition failing, it shows the table is not what was read)."""
        changes = [
            Change(table, pk) for table, pk in dict.fromkeys(partitions) if table in STREAMED_TABLES
        ]
        if not changes:
            return
        if self.cache is not None:
            self.cache.changes(changes)
        if self.feed is None:
            return
        try:
            await self.feed.publish(changes)
        except Exception:
            # The write stands; the stream carries its change to the other replicas.
            logger.exception("Publishing the gateway's own changes failed")
