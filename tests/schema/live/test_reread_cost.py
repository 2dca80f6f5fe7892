"""A subscription's re-read is charged its document's cost, as the cost limit measures it for
the subscribe's variables, shared among the users it watches: the subscription's resolver
finds the prepared operation through strawberry's public `Info` (`info.schema`, whose
prepared operations `build_schema` sets, `info.operation`, `info.variable_values`)."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from graphql import parse

from loaders.dynamodb import Dynamo
from schema.context import build_context
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions.measures import query_cost
from schema.principal import Principal
from schema.root import build_schema
from support.fixed_clock import FixedClock
from tests.schema.conftest import DASHBOARD_USER


class Recording:
    """A socket's live session that records what each subscribe is charged per re-read."""

    def __init__(self) -> None:
        self.costs: list[int] = []

    def subscribe(
        self, *, principal: Principal, user_ids: list[str], initial: bool, cost: int
    ) -> AsyncIterator[Any]:
        self.costs.append(cost)
        return self._nothing()

    async def _nothing(self) -> AsyncIterator[Any]:
        return
        yield


DOCUMENT = (
    "subscription($ids: [ID!]!, $months: Int!) { userChanged(ids: $ids) { id "
    "savingsMonths(months: $months) { month } recurringExpenses { amount } } }"
)


@pytest.mark.parametrize(("ids", "months"), [(["u-1"], 12), (["u-1", "u-2", "u-3"], 2)])
async def test_a_subscribe_charges_each_re_read_its_share_of_the_documents_cost(
    dynamo: Dynamo, clock: FixedClock, ids: list[str], months: int
) -> None:
    schema = build_schema()
    live = Recording()
    context = replace(
        build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock), live=live
    )
    variables = {"ids": ids, "months": months}
    result = await schema.subscribe(DOCUMENT, variable_values=variables, context_value=context)
    assert not getattr(result, "errors", None)
    async for event in result:
        raise AssertionError(f"the recording session sends nothing: {event}")
    total = query_cost(schema._schema, parse(DOCUMENT), GATEWAY_COST_POLICY, None, variables)
    assert live.costs == [max(1, math.ceil(total / len(ids)))]
    assert total > len(ids)  # a share of the document's cost, not the minimum charge
