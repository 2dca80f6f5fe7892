"""A clock that stands still until moved: the tests' and the benchmarks' `schema.clock.Clock`,
so that every date rule runs at an instant they choose."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FixedClock:
    """A clock that stands still until moved."""

    def __init__(self, now: datetime) -> None:
        if now.tzinfo is None:
            raise ValueError("FixedClock needs a timezone-aware instant")
        self._now = now.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def set(self, now: datetime) -> None:
        self._now = now.astimezone(UTC)

    def advance(self, delta: timedelta) -> None:
        self._now += delta
