"""Answers now or later: a read the request (or the coherent cache) can already answer is a
value, with no future awaited and no task; any other is an awaitable of it.

GraphQL completes a resolver's value at once and awaits only an awaitable, so a `User`
field whose reads are all answered (a warm cache) completes synchronously, while one that
waits for DynamoDB is awaited with every other field of the request, in one wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import CoroutineType
from typing import Any, TypeAlias, TypeVar, cast

__all__ = ["Answer", "Found", "R", "T", "done", "pending", "settled", "then"]

T = TypeVar("T")
R = TypeVar("R")

#: A value, or an awaitable of it.
Answer: TypeAlias = T | Awaitable[T]

#: What a loader's `answer` gives: the value, or the future of its load.
Found: TypeAlias = T | asyncio.Future[T]

_PENDING: tuple[type[Any], ...] = (asyncio.Future, CoroutineType)


def pending(answer: object) -> bool:
    """True when `answer` is still to be awaited (a future or a coroutine)."""
    return isinstance(answer, _PENDING)


def done(future: asyncio.Future[T]) -> bool:
    """True when `future` holds a value now (not failed, not cancelled)."""
    return future.done() and not future.cancelled() and future.exception() is None


def then(found: Answer[T], rule: Callable[[T], R]) -> Answer[R]:
    """`rule` applied to the answer: now when it is a value, after it when it is pending."""
    if isinstance(found, _PENDING):
        return _after(found, rule)
    return rule(cast(T, found))


async def _after(found: Awaitable[T], rule: Callable[[T], R]) -> R:
    return rule(await found)


async def settled(found: Answer[T]) -> T:
    """The answer's value, awaited if need be."""
    if isinstance(found, _PENDING):
        return cast(T, await found)
    return cast(T, found)
