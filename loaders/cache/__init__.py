"""The coherent cache (SPEC section 8): per replica, the items its requests read, kept
exact by the change feed, and trusted only while the feed is whole.

`CoherentCache` holds the entries and listens to the feed; whether the feed is whole is
its `FeedWatch` (loaders/live/feed_watch.py, the live data's). A request's loaders see it
through a `CacheReader`; mutations drop and publish their partitions through a
`WritePublisher`.
"""

from loaders.cache.coherent import MISS, CoherentCache, Miss
from loaders.cache.items import PART_SLOT
from loaders.cache.reader import CacheReader
from loaders.cache.writes import WritePublisher
from loaders.entities import STREAMED_TABLES

__all__ = [
    "MISS",
    "PART_SLOT",
    "STREAMED_TABLES",
    "CacheReader",
    "CoherentCache",
    "Miss",
    "WritePublisher",
]
