"""Answers now or later: a read the request (or the coherent cache) can already answer is a
value, with no future awaited and no task; any other is `Later`: the loads it waits on and
the rule that makes the answer of what they give.

A compiled operation (`schema.execution.operation`) asks every field of every user for its
answer first, then waits once on all their loads together (`Later.loads`), then settles each
answer synchronously (`Later.settle`): no coroutine or task per field. graphql-core's own path
awaits a `Later` like any awaitable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator, Iterator
from typing import Any, Generic, TypeAlias, TypeVar

__all__ = ["Answer", "Found", "Later", "R", "T", "done", "pending", "then", "when_all"]

T = TypeVar("T")
R = TypeVar("R")

#: What a loader's `answer` gives: the value, or the future of its load.
Found: TypeAlias = T | asyncio.Future[T]


class Later(Generic[R]):
    """`rule` applied to what `waits` give: each a future, another `Later` or a value."""

    __slots__ = ("_rule", "_waits")

    def __init__(self, waits: tuple[object, ...], rule: Callable[..., R]) -> None:
        self._waits = waits
        self._rule = rule

    def loads(self) -> Iterator[asyncio.Future[Any]]:
        """The futures this answer waits on, through nested answers."""
        for wait in self._waits:
            if isinstance(wait, Later):
                yield from wait.loads()
            elif isinstance(wait, asyncio.Future):
                yield wait

    def settle(self) -> R:
        """The answer, once every load is done: a failed load's error is raised."""
        return self._rule(*(_value(wait) for wait in self._waits))

    def __await__(self) -> Generator[Any, None, R]:
        return self._settled().__await__()

    async def _settled(self) -> R:
        # Gathered, so that a failure of one load is the answer's error and none is left
        # unretrieved.
        await asyncio.gather(*self.loads())
        return self.settle()


#: A value, or the loads it waits on and its rule.
Answer: TypeAlias = T | Later[T]


def _value(wait: object) -> Any:
    if isinstance(wait, Later):
        return wait.settle()
    if isinstance(wait, asyncio.Future):
        return wait.result()
    return wait


def pending(answer: object) -> bool:
    """True when `answer` still waits on a load."""
    return isinstance(answer, (Later, asyncio.Future))


def done(future: asyncio.Future[T]) -> bool:
    """True when `future` holds a value now (not failed, not cancelled)."""
    return future.done() and not future.cancelled() and future.exception() is None


def then(found: Found[T] | Later[T] | T, rule: Callable[[T], R]) -> Answer[R]:
    """`rule` applied to the answer: now when it is a value, after its loads otherwise."""
    if isinstance(found, (Later, asyncio.Future)):
        return Later((found,), rule)
    return rule(found)


def when_all(waits: tuple[object, ...], rule: Callable[..., R]) -> Answer[R]:
    """`rule` applied to every answer of `waits` (values, futures, `Later`s): now when all
    are values, after their loads otherwise."""
    if any(isinstance(wait, (Later, asyncio.Future)) for wait in waits):
        return Later(waits, rule)
    return rule(*waits)
