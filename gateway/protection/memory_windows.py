"""`LoopMemoryStorage`: `limits`' in-memory storage (`async+memory://`), its expiry sweep
done on the event loop itself, at most once a second.

limits 5.8 sweeps after any hit once its last sweep is done, and for every key hops to a
thread (`asyncio.to_thread`) for one bisect: N principals cost N thread hops a sweep, and
under load the sweeps run back to back. In the bench's frontend profile, with one key, the
thread was a tenth of the worker's samples, and its hand-offs of the GIL sit in the tail.

The sweep only frees memory: a window's count is read from its entries' times
(`get_moving_window`), never from the sweep's work. So here it is synchronous, with no
await (no other coroutine sees a key half swept, which also closes limits' own race
between its cutoff and its slice, limits issue 277), once a second at most."""

from __future__ import annotations

import bisect
import time

from limits.aio.storage import MemoryStorage

__all__ = ["LoopMemoryStorage"]


class LoopMemoryStorage(MemoryStorage):
    """limits' async memory storage, swept on the loop."""

    #: The shortest time between two sweeps.
    SWEEP_SECONDS = 1.0

    def __init__(self) -> None:
        super().__init__()
        self._swept = 0.0

    # limits calls `self.__schedule_expiry()` before each hit and count: its private name,
    # mangled, is what a subclass overrides (tests/gateway/protection hold it to that).
    async def _MemoryStorage__schedule_expiry(self) -> None:
        now = time.monotonic()
        if now - self._swept < self.SWEEP_SECONDS:
            return
        self._swept = now
        self.sweep(time.time())

    def sweep(self, now: float) -> None:
        """Drop the entries and counters expired at `now` (limits' own sweep, inline)."""
        for key, entries in list(self.events.items()):
            # Newest first: the entries still alive are a prefix.
            alive = bisect.bisect_left(entries, -now, key=lambda entry: -entry.expiry)
            if alive:
                del entries[alive:]
            else:
                del self.events[key]
                self.locks.pop(key, None)
        for key, expiry in list(self.expirations.items()):
            if expiry <= now:
                self.storage.pop(key, None)
                del self.expirations[key]
                self.locks.pop(key, None)
