"""The per-request deadline: one instant, on the event loop's clock, past which no DynamoDB
call of the request may still be waiting. Kept in a context variable so that it follows the
request into the DataLoaders' batch tasks (each copies the context it was created in)."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("request_deadline", default=None)


def start_deadline(seconds: float) -> float:
    """Set the current request's deadline `seconds` from now; returns it (loop time)."""
    deadline = asyncio.get_running_loop().time() + seconds
    _deadline.set(deadline)
    return deadline


def current_deadline() -> float | None:
    """The current request's deadline in loop time, None outside a request (no limit)."""
    return _deadline.get()
