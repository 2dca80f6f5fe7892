"""The coherent cache (SPEC section 8): per replica, the items its requests read, kept
exact by the change feed, and trusted only while the feed is whole.

`CoherentCache` holds the entries and listens to the feed; a request's loaders see it
through a `CacheReader`; mutations drop and publish their partitions through a
`WritePublisher`.
"""

from loaders.cache.coherent import MISS, CoherentCache, Miss
from loaders.cache.feed_watch import DISCONNECTED, LAGGING, NO_POSITION, FeedWatch
from loaders.cache.reader import CacheReader
from loaders.cache.writes import WritePublisher
from loaders.entities import STREAMED_TABLES

__all__ = [
    "DISCONNECTED",
    "LAGGING",
    "MISS",
    "NO_POSITION",
    "STREAMED_TABLES",
    "CacheReader",
    "CoherentCache",
    "FeedWatch",
    "Miss",
    "WritePublisher",
]
