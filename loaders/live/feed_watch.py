"""Whether the change feed is whole: the cache is trusted only while it is.

The stream readers publish each shard's position (every change committed before
`current_as_of` has been published) after each batch and at least once a second while
idle. The feed is whole while it is connected, every streamed table has a position, and
no known shard's position is older than the allowed lag.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from loaders.entities import STREAMED_TABLES
from loaders.live.changes import ShardPosition
from loaders.table import Table

__all__ = ["DISCONNECTED", "LAGGING", "NO_POSITION", "FeedWatch"]

#: Bypass reasons, the `reason` label of `gateway_cache_bypasses`.
DISCONNECTED = "disconnected"
NO_POSITION = "no_position"
LAGGING = "lagging"


class FeedWatch:
    """The feed's state as the cache's listener hears it. `clock` gives epoch seconds on
    the stream readers' clock (the wall clock); tests pass their own."""

    def __init__(
        self,
        streamed_tables: Iterable[Table] = STREAMED_TABLES,
        max_lag_seconds: float = 2.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.streamed_tables = frozenset(streamed_tables)
        self.max_lag_seconds = max_lag_seconds
        self._clock = clock
        self._positions: dict[tuple[Table, str], float] = {}
        self._heard: set[Table] = set()
        # The oldest known shard's position, kept up to date as positions come in.
        self._oldest = float("inf")
        self._disconnected = False

    def position(self, position: ShardPosition) -> None:
        shard = (position.table, position.shard_id)
        previous = self._positions.get(shard)
        # A position never moves back (a late message from a reader that lost its lease).
        if previous is not None and position.current_as_of <= previous:
            return
        self._positions[shard] = position.current_as_of
        self._heard.add(position.table)
        if previous is None or previous <= self._oldest:
            self._oldest = min(self._positions.values())

    def disconnected(self) -> None:
        self._disconnected = True

    def reconnected(self) -> None:
        self._disconnected = False

    def lag_seconds(self) -> float | None:
        """How far behind the oldest known shard is (None: no position yet)."""
        if not self._positions:
            return None
        return max(0.0, self._clock() - self._oldest)

    def bypass_reason(self) -> str | None:
        """Why the cache may not be used now, or None: the feed is whole."""
        if self._disconnected:
            return DISCONNECTED
        if not self.streamed_tables <= self._heard:
            return NO_POSITION
        if self._oldest < self._clock() - self.max_lag_seconds:
            return LAGGING
        return None
