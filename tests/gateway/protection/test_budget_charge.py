"""The budget charge reads the cost limit's measure: each document's cost is measured once, by
the limit on validation, and the charge takes what it measured."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.extensions.measures import query_cost
from support.fixed_clock import FixedClock
from support.http_client import gateway_client
from tests.gateway.protection.test_rate_limit import BY_VARIABLE, ONE, bearer, remaining


async def test_each_document_is_measured_once_for_the_limit_and_the_charge(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured: list[str | None] = []

    def counted(*args: Any, **kwargs: Any) -> int:
        cost = query_cost(*args, **kwargs)
        measured.append(args[3])  # the operation name
        return cost

    # The name the prepared operation calls (schema/prepared.py imports it).
    monkeypatch.setattr("schema.prepared.query_cost", counted)
    async with gateway_client(settings, dynamo, clock, rate_limit_user="100/hour") as client:

        async def post(query: str, variables: dict[str, Any] | None = None) -> int:
            body = {"query": query, "variables": variables or {}}
            answer = await client.post("/graphql", json=body, headers=bearer(clock))
            assert answer.status_code == 200, answer.text
            return remaining(answer.headers)

        first = await post(BY_VARIABLE, {"m": 7})
        after_first = len(measured)
        # The same text, the same variable sizes: its prepared operation answers.
        second = await post(BY_VARIABLE, {"m": 7})
        after_second = len(measured)
        third = await post(ONE)

    assert (after_first, after_second, len(measured)) == (1, 1, 2)
    # The charge is what the limit measured: 7 months, twice, then 1.
    assert (first, second, third) == (93, 86, 85)
