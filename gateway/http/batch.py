"""The order a batch (a JSON array of operations, SPEC section 4) runs its operations in.

Queries run concurrently, so that the loads of every query of the batch fall into the same
event-loop ticks of the one set of loaders the batch shares, and go to DynamoDB together:
the batch waits on DynamoDB once, not once per operation. A mutation is a barrier: it
starts after every operation before it has ended, and the operations after it start after
it has ended, so that a batch's writes happen in order and a query reads what the mutations
before it wrote (the loaders learn each write, `UserReads.wrote`).

Running together is not enough when an operation awaits real I/O before its resolvers run
(the budget charge against Redis): the queries would reach their loads in different ticks
and each go to DynamoDB alone. So the queries of one run meet at a start gate: the
`BatchStart` extension, the last before execution, holds each one until every query of the
run has reached it or ended (refused by its limits, its validation or its budget), and then
lets them all resolve in the same tick.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TypeVar

from strawberry.extensions import SchemaExtension

from schema.context import Context

T = TypeVar("T")


class StartGate:
    """Opens once each of `parties` operations has arrived (reached execution, or ended)."""

    def __init__(self, parties: int) -> None:
        self._waiting = parties
        self._open = asyncio.Event()

    def _arrive(self) -> None:
        self._waiting -= 1
        if self._waiting <= 0:
            self._open.set()


class Arrival:
    """One operation's place at a StartGate; arriving twice counts once."""

    def __init__(self, gate: StartGate) -> None:
        self.gate = gate
        self.arrived = False

    def arrive(self) -> None:
        if not self.arrived:
            self.arrived = True
            self.gate._arrive()

    async def arrive_and_wait(self) -> None:
        self.arrive()
        await self.gate._open.wait()


class BatchStart(SchemaExtension):
    """Holds an operation of a batch, as its execution starts, until the other queries of its
    run are there too (its place at the gate is its Context's `arrival`). Outside a batch
    it does nothing. It must come after every extension that awaits before execution (the
    budget charge)."""

    async def on_execute(self) -> AsyncIterator[None]:
        context = self.execution_context.context
        arrival = context.arrival if isinstance(context, Context) else None
        if arrival is not None:
            await arrival.arrive_and_wait()
        yield


async def run_in_order(
    steps: Sequence[Callable[[Arrival | None], Awaitable[T]]], barriers: Sequence[bool]
) -> list[T]:
    """Every step's result, in order: runs of non-barrier steps concurrently (one task
    each, meeting at a start gate: each step is given its place at it), each barrier step
    alone, after everything before it (given no place: None)."""
    results: dict[int, T] = {}
    pending: list[int] = []

    async def run(index: int, gate: StartGate | None = None) -> None:
        arrival = None if gate is None else Arrival(gate)
        try:
            results[index] = await steps[index](arrival)
        finally:
            if arrival is not None:
                arrival.arrive()  # ended without reaching execution: the others go on

    async def flush() -> None:
        if pending:
            gate = StartGate(len(pending))
            await asyncio.gather(*(run(index, gate) for index in pending))
            pending.clear()

    for index, barrier in enumerate(barriers):
        if barrier:
            await flush()
            await run(index)
        else:
            pending.append(index)
    await flush()
    return [results[index] for index in range(len(steps))]
