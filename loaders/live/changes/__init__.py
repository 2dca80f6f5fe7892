"""The change feed: which partitions changed, and how current the feed is.

The stream readers (DynamoDB Streams, one reader per shard among the replicas) publish a
`Change` for each record and a `ShardPosition` per shard (a heartbeat when idle). Every
replica's listeners hear them: the subscriptions (re-read the user) and the coherent cache
(drop the partition). The gateway's own mutations publish their changes at once too.
"""

from loaders.live.changes.feed import (
    Change,
    ChangeFeed,
    ChangeListener,
    MemoryChangeFeed,
    ShardPosition,
)

__all__ = ["Change", "ChangeFeed", "ChangeListener", "MemoryChangeFeed", "ShardPosition"]
