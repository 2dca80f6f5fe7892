"""A held lock, the lock's errors, and its sense of time."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Protocol


class Timer(Protocol):
    """The lock's sense of time: a monotonic clock and a sleep, injectable for tests."""

    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class RealTimer:
    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class LockNotGranted(Exception):
    """Someone else holds the lock."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


class LockLost(Exception):
    """The lock is no longer ours: released, expired locally, or taken over."""


@dataclass(slots=True, eq=False)
class Lock:
    """A lock this client holds (until released or lost)."""

    key: str
    owner_name: str
    record_version_number: str
    lease_seconds: float
    #: Monotonic time from which the lease counts (just before the last successful write).
    lookup_time: float
    data: bytes | None
    delete_on_release: bool
    released: bool = False
    lost: bool = False
    # Heartbeat and release must not overlap: a release conditioned on the version a
    # concurrent heartbeat is replacing would fail and strand the item for a whole lease.
    mutex: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
