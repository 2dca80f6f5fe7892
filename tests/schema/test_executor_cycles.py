"""An operation's executor, Context and loaders are freed by reference counting as the
operation ends, on both paths (compiled, and graphql-core's), with the collector off: no
cycle keeps them for its next pass (a socket's subscription held 4 KiB of RSS that way)."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

from loaders.dynamodb import Dynamo
from schema.context import build_context
from schema.execution.executor import ReferenceExecutionContext
from support.fixed_clock import FixedClock
from tests.schema.conftest import DASHBOARD_USER

#: Compiled (a User selection), and graphql-core's (introspection is never compiled).
QUERIES = [
    "query($id: ID!) { user(id: $id) { id payday { nextDate } alert { alertSent } } }",
    "{ __schema { queryType { name } } }",
]


def executors() -> set[int]:
    """The executors alive now (an earlier test's may outlive it: not ours)."""
    return {id(o) for o in gc.get_objects() if isinstance(o, ReferenceExecutionContext)}


@pytest.mark.parametrize("query", QUERIES)
async def test_an_operation_leaves_nothing_for_the_collector(
    gateway_schema: Any, dynamo: Dynamo, clock: FixedClock, collector_off: None, query: str
) -> None:
    before = executors()
    context = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock)
    result = await gateway_schema.execute(
        query, variable_values={"id": "u-1"}, context_value=context
    )
    assert result.errors is None, result.errors
    context.reads.release()
    gone = weakref.ref(context)
    del context
    assert gone() is None
    assert executors() - before == set()
