"""`open_change_feed(uri)`: the feed `INSIGHT_CHANGE_FEED_URI` names."""

from __future__ import annotations

from loaders.live.changes.feed import ChangeFeed, MemoryChangeFeed

__all__ = ["open_change_feed"]


def open_change_feed(uri: str) -> ChangeFeed:
    """`memory://`: this process only; `redis://host:port/db` (or `rediss://`): every
    replica subscribed to the same Redis. Not started yet: call `start()`."""
    if uri == "memory://":
        return MemoryChangeFeed()
    if uri.startswith(("redis://", "rediss://")):
        from loaders.live.changes.redis_feed import RedisChangeFeed

        return RedisChangeFeed(uri)
    raise ValueError(f"a change feed URI is memory:// or redis://host:port/db, not {uri!r}")
