"""Every operation's cost goes to the metrics, asked for in `extensions.cost` or not."""

from __future__ import annotations

import dataclasses
from typing import Any

from gateway.settings import Settings
from support.fixed_clock import FixedClock
from support.http_client import app_client
from support.metrics_text import samples, value

SECRET = "cost-metrics-secret-0123456789abcdef"
ALERTS = '{ users(ids: ["a", "b", "c"]) { alert { alertSent } latestMine { minedAt } } }'


async def test_calls_round_trips_and_capacity_are_observed_per_operation(
    settings: Settings, clock: FixedClock
) -> None:
    configured = dataclasses.replace(settings, auth_hs256_secret=SECRET)
    async with app_client(configured, clock) as client:
        asked = await client.post(
            "/graphql", json={"query": ALERTS}, headers={"X-Insight-Cost": "1"}
        )
        cost: dict[str, Any] = asked.json()["extensions"]["cost"]
        unasked = await client.post("/graphql", json={"query": ALERTS})
        assert "extensions" not in unasked.json()
        found = samples((await client.get("/metrics")).text)
    # One BatchGetItem of three alerts, three latest-mine Queries; moto's capacity model.
    assert cost == {"dynamodbCalls": 4, "roundTrips": 1, "readCapacityUnits": 6.0}
    calls = "gateway_graphql_operation_dynamodb_calls"
    assert value(found, calls + "_count", operation="query") == 2
    assert value(found, calls + "_sum", operation="query") == 2 * 4
    trips = "gateway_graphql_operation_dynamodb_round_trips"
    assert value(found, trips + "_sum", operation="query") == 2
    units = "gateway_graphql_operation_read_capacity_units"
    assert value(found, units + "_sum", operation="query") == 2 * 6.0
