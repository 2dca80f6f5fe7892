"""The schema extension that lets a replay through the schema's checks but not its execution.

A keyed mutation whose record answers it (a replay, or 422 for another fingerprint) still
passes through `schema.execute` (gateway/idempotency/runner.py): the query limits, the
validation and the budget's charge (gateway/protection/budget_charge.py) treat it as the
operation it replays, so it is charged that operation's cost in its principal's budget, on
every transport. Every schema has it, after the extensions it is built with: an operation
they admitted (no result set yet) is held here, before any resolver runs, with an empty
result that the runner replaces with the record.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphql import ExecutionResult
from strawberry.extensions import SchemaExtension

from schema.context import Context


class ReplayHold(SchemaExtension):
    def on_execute(self) -> Iterator[None]:
        context = self.execution_context
        operation = context.context
        replay = operation.replay if isinstance(operation, Context) else None
        if replay is not None and context.result is None:
            replay.held = True
            context.result = ExecutionResult(data=None)
        yield
