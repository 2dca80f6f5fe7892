"""The longest stretch the event loop spends in one callback, in CPU seconds of its thread.

Every coroutine step, protocol callback and timer of an asyncio loop runs as one
`asyncio.Handle` (`Task` steps included: a task schedules each step with `call_soon`), so
timing `Handle._run` times every synchronous stretch: nothing else can run on the loop
meanwhile. The figure is the thread's CPU time, not the wall clock: on a shared machine
another process taking the core inflates wall time but not this, so a bound on it holds
the code to account and not the neighbours.

The garbage collector's passes are left out of the figure: a full collection costs in
proportion to the whole heap (a test process's, with hypothesis's and the fixtures' objects,
is far bigger than a replica's), not to the request it happens to interrupt.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")


class LoopHold:
    """The longest callback seen since the last `reset`."""

    def __init__(self) -> None:
        self.longest = 0.0
        #: The callback that took `longest`.
        self.slowest = ""
        #: CPU seconds spent collecting garbage, in all.
        self.collecting = 0.0
        self._collection_started = 0.0

    def on_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._collection_started = time.thread_time()
        else:
            self.collecting += time.thread_time() - self._collection_started

    def reset(self) -> None:
        self.longest, self.slowest = 0.0, ""

    async def run(self, work: Awaitable[T]) -> T:
        """`work` awaited in a task of its own, timed from its first step: the caller's
        step ends (and is timed) before it starts. The request of an ASGI transport may
        never suspend, and would otherwise run inside the caller's step."""
        task = asyncio.ensure_future(work)
        self.reset()
        return await task


@contextmanager
def loop_hold() -> Iterator[LoopHold]:
    """Times every callback of every asyncio loop in this process while the block runs."""
    hold = LoopHold()
    original = asyncio.events.Handle._run

    def timed(handle: Any) -> None:
        started, collecting = time.thread_time(), hold.collecting
        try:
            original(handle)
        finally:
            spent = time.thread_time() - started - (hold.collecting - collecting)
            if spent > hold.longest:
                hold.longest, hold.slowest = spent, repr(handle)

    asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]
    gc.callbacks.append(hold.on_collection)
    try:
        yield hold
    finally:
        gc.callbacks.remove(hold.on_collection)
        asyncio.events.Handle._run = original  # type: ignore[method-assign]
