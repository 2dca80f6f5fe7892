"""`LoopMemoryStorage`: the in-memory budget windows (`async+memory://`), a storage of the
gateway's own on the interface limits documents for custom storages (`Storage` and
`MovingWindowSupport`: limits' "Custom storage backends"), counted as limits' own
`MemoryStorage` counts a moving window, and its expiry swept on the event loop itself, at
most once a second.

limits 5.8's memory storage sweeps after any hit once its last sweep is done, and for
every key hops to a thread (`asyncio.to_thread`) for one bisect: N principals cost N thread
hops a sweep, and under load the sweeps run back to back. In the bench's frontend profile,
with one key, the thread was a tenth of the worker's samples, and its hand-offs of the GIL
sit in the tail. Its sweep is a private method; this storage is limits' public contract.

The sweep only frees memory: a window's count is read from its entries' times
(`get_moving_window`), never from the sweep's work. So here it is synchronous, with no
await (no other coroutine sees a key half swept, which also closes limits' own race
between its cutoff and its slice, limits issue 277), once a second at most."""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass

from limits.aio.storage import MovingWindowSupport, Storage

__all__ = ["LoopMemoryStorage"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One acquired unit of a window: when, and until when it counts."""

    atime: float
    expiry: float


class LoopMemoryStorage(Storage, MovingWindowSupport):
    """Moving windows in this process's memory, swept on the loop. No lock is needed:
    nothing here awaits, so each call is whole on the loop."""

    #: The shortest time between two sweeps.
    SWEEP_SECONDS = 1.0

    def __init__(self) -> None:
        super().__init__()
        #: Each key's entries, newest first.
        self.events: dict[str, list[Entry]] = {}
        self._swept = 0.0

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    def _maybe_sweep(self) -> None:
        now = time.monotonic()
        if now - self._swept < self.SWEEP_SECONDS:
            return
        self._swept = now
        self.sweep(time.time())

    def sweep(self, now: float) -> None:
        """Drop the entries expired at `now`."""
        for key, entries in list(self.events.items()):
            # Newest first: the entries still alive are a prefix.
            alive = bisect.bisect_left(entries, -now, key=lambda entry: -entry.expiry)
            if alive:
                del entries[alive:]
            else:
                del self.events[key]

    # --- the moving window (MovingWindowSupport) -----------------------------------------

    async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        self._maybe_sweep()
        entries = self.events.setdefault(key, [])
        now = time.time()
        # The window is full when the entry `amount` places from its end is still in it.
        if len(entries) > limit - amount and entries[limit - amount].atime >= now - expiry:
            return False
        entries[:0] = [Entry(now, now + expiry)] * amount
        return True

    async def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        now = time.time()
        if entries := self.events.get(key):
            inside = bisect.bisect_left(entries, -(now - expiry), key=lambda entry: -entry.atime)
            return entries[inside - 1].atime, inside
        return now, 0

    # --- the rest of limits' Storage -----------------------------------------------------

    async def check(self) -> bool:
        return True

    async def reset(self) -> int | None:
        count = len(self.events)
        self.events.clear()
        return count

    async def clear(self, key: str) -> None:
        self.events.pop(key, None)

    # --- limits' plain counters (Storage): abstract there, unused here ------------------
    # The budgets use moving windows only: limits calls these from its fixed- and
    # sliding-window limiters, never from MovingWindowRateLimiter.

    async def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        raise NotImplementedError

    async def get(self, key: str) -> int:
        raise NotImplementedError

    async def get_expiry(self, key: str) -> float:
        raise NotImplementedError
