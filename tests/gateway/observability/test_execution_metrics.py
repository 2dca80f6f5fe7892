"""`gateway_operations_executed_total{path}` counts each operation by the path that answered
it: its compiled form, graphql-core after the compiled form ran (an error to report), or
graphql-core alone (no compiled form), in the app as it serves."""

from __future__ import annotations

import pytest

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import OTHER_USER, gateway_client, tokens
from support.metrics_text import by_label

PATHS = {
    "compiled": "{ viewer { id payday { nextDate } recurringExpenses { amount } } }",
    "fell_back": f'{{ user(id: "{OTHER_USER}") {{ id }} }}',
    "declined": "{ __schema { queryType { name } } }",
}


@pytest.mark.parametrize("path", sorted(PATHS))
async def test_each_operation_is_counted_under_the_path_that_answered_it(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, path: str
) -> None:
    headers = {"Authorization": f"Bearer {tokens(clock)['end user']()}"}
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post("/graphql", json={"query": PATHS[path]}, headers=headers)
        text = (await client.get("/metrics")).text
    assert response.status_code == 200
    counts = {
        name: float(count)
        for name, count in by_label(text, "gateway_operations_executed_total", "path").items()
    }
    assert counts == {name: 1.0 if name == path else 0.0 for name in PATHS}
