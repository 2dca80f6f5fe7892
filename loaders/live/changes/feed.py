"""The change feed's messages, the listener and feed protocols, and the in-process feed."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from loaders.tables import Table

logger = logging.getLogger("gateway.changes")


@dataclass(frozen=True, slots=True)
class Change:
    """A committed write to one partition: `(table, partition key)` is all a listener needs,
    since the gateway re-reads (the streams are `KEYS_ONLY`)."""

    table: Table
    partition_key: str


@dataclass(frozen=True, slots=True)
class ShardPosition:
    """How current one shard's reader is: every change committed to the shard before
    `current_as_of` (epoch seconds) has been published. Published after each batch of
    records, and at least once a second while the shard is idle."""

    table: Table
    shard_id: str
    current_as_of: float


class ChangeListener(Protocol):
    """What hears the feed. Called on the feed's own task: a listener never blocks; it
    schedules its own work."""

    def changes(self, changes: Sequence[Change]) -> None: ...

    def position(self, position: ShardPosition) -> None: ...

    def resync(self, reason: str) -> None:
        """Changes may have been missed (the feed was cut off and is back, or a stream's
        data was trimmed): whatever was derived from earlier reads must be read again."""
        ...

    def disconnected(self) -> None:
        """The feed is cut off: until `resync`, changes may be missed."""
        ...


class ChangeFeed(Protocol):
    """Carries changes and positions to every replica's listeners (this one included)."""

    @property
    def connected(self) -> bool: ...

    async def publish(self, changes: Sequence[Change]) -> None: ...

    async def publish_position(self, position: ShardPosition) -> None: ...

    async def publish_resync(self, reason: str) -> None:
        """Tell every replica's listeners to `resync(reason)` (a stream's data was trimmed
        before it was read: changes were missed)."""
        ...

    def listen(self, listener: ChangeListener) -> Callable[[], None]:
        """Add a listener; the returned function removes it."""
        ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...


class Listeners:
    """A feed's listeners, each told in turn: a failing one must not starve the others (nor
    the stream reader publishing), so its error is logged and the others still hear."""

    def __init__(self) -> None:
        self._listeners: list[ChangeListener] = []

    def listen(self, listener: ChangeListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _each(self, call: Callable[[ChangeListener], None]) -> None:
        for listener in tuple(self._listeners):
            try:
                call(listener)
            except Exception:
                logger.exception("A change listener failed")


class MemoryChangeFeed(Listeners):
    """One replica's feed (`memory://`): a publish reaches this process's listeners at once."""

    @property
    def connected(self) -> bool:
        return True

    async def publish(self, changes: Sequence[Change]) -> None:
        if changes:
            self._each(lambda listener: listener.changes(changes))

    async def publish_position(self, position: ShardPosition) -> None:
        self._each(lambda listener: listener.position(position))

    async def publish_resync(self, reason: str) -> None:
        self._each(lambda listener: listener.resync(reason))

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        self._listeners.clear()
