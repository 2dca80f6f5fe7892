"""A planned object's reads in two steps: every planned field of every object is asked for
its answer (`ask`) before anything is awaited, the loads of all the answers are awaited
once together (`loads_of`), and each answer is then settled synchronously (`settle`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from graphql.pyutils import is_awaitable

from loaders.answers import Later

__all__ = ["PlannedRead", "ask", "loads_of", "outcome", "settle"]

#: A planned field's read for this request: its resolver with its arguments bound.
PlannedRead: TypeAlias = Callable[[Any], Any]


def ask(reads: Sequence[PlannedRead], source: Any) -> list[Any]:
    """Each planned read's answer for `source`: a value, `Later`, another awaitable, or the
    error it raised (which sends the object back to graphql-core's path)."""
    answers: list[Any] = []
    for read in reads:
        try:
            answers.append(read(source))
        except Exception as error:  # graphql-core's path gives the error at its place
            answers.append(error)
    return answers


def loads_of(answers: Sequence[Sequence[Any]]) -> list[Any]:
    """Every load the answers wait on, each once: the futures under `Later`s, and any other
    awaitable as it is."""
    waits: dict[int, Any] = {}
    for object_answers in answers:
        for answer in object_answers:
            if isinstance(answer, Later):
                for load in answer.loads():
                    waits.setdefault(id(load), load)
            elif is_awaitable(answer):
                waits.setdefault(id(answer), answer)
    return list(waits.values())


def settle(answers: list[Any], awaited: dict[int, Any]) -> list[Any]:
    """The answers once their loads are done: `Later`s settled (a failed load becomes its
    error as the value), other awaitables replaced by what awaiting them gave."""
    settled: list[Any] = []
    for answer in answers:
        if isinstance(answer, Later):
            try:
                settled.append(answer.settle())
            except (Exception, asyncio.CancelledError) as error:
                settled.append(error)
        elif id(answer) in awaited:
            settled.append(awaited[id(answer)])
        else:
            settled.append(answer)
    return settled


def outcome(load: asyncio.Future[Any]) -> Any:
    """A done load's value, or its error as the value (a cancelled load's too)."""
    if load.cancelled():
        return asyncio.CancelledError()
    error = load.exception()
    return load.result() if error is None else error
