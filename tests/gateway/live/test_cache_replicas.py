"""The coherent cache on two gateway processes over moto's streams, sharing the change feed
through a real `redis-server`: a write made straight to DynamoDB by another service shows
on both replicas within the feed's lag, though each answered from its cache before."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest

from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.rows.income import IncomeRow
from loaders.tables import Table
from schema.clock import SystemClock
from schema.principal import DASHBOARD
from support.seed import seed_users
from tests.gateway.live.test_replicas import Replica, lease, replicas, until

__all__ = ["lease", "replicas"]

SECRET = "cache-replicas-secret-0123456789abcdef"
INCOME = '{ user(id: "u-1") { income { amount } } }'


async def read(client: httpx.AsyncClient, replica: Replica, token: str) -> tuple[Any, Any]:
    answer = await client.post(
        f"http://127.0.0.1:{replica.port}/graphql",
        json={"query": INCOME},
        headers={"Authorization": f"Bearer {token}", "X-Insight-Cost": "1"},
    )
    body = answer.json()
    assert "errors" not in body, body
    return body["data"]["user"]["income"], body["extensions"]["cost"]


async def test_an_outside_write_shows_on_both_replicas_within_the_feeds_lag(
    replicas: Callable[[], Replica],
    dynamo: Dynamo,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await seed_users(dynamo, ["u-1"], SystemClock().now(), settings)
    monkeypatch.setenv("INSIGHT_CACHE", "true")
    monkeypatch.setenv("INSIGHT_AUTH_HS256_SECRET", SECRET)
    token = mint_token(SECRET, "dash-1", [DASHBOARD], timedelta(hours=1), SystemClock())
    first = replicas()
    await until(lambda: first.up() and first.metric("gateway_stream_leases_held") == 3)
    second = replicas()
    await until(second.up)
    async with httpx.AsyncClient(timeout=10) as client:
        for replica in (first, second):
            # Cached once every streamed table's position is heard (through Redis too).
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                before, cost = await read(client, replica, token)
                if cost["cachedReads"] == 1:
                    break
            assert cost == {**cost, "dynamodbCalls": 0, "cachedReads": 1}
        now = SystemClock().now()
        row = IncomeRow("u-1", "ACME PAYROLL", Decimal("2000.00"), "biweekly", now.date(), now)
        await dynamo.put(Table.PAVE, row.to_item())
        written = time.monotonic()
        shown_after: list[float] = []
        for replica in (first, second):
            deadline = written + 60
            while time.monotonic() < deadline:
                income, _ = await read(client, replica, token)
                if income == {"amount": "2000.00"}:
                    break
            assert income == {"amount": "2000.00"}
            shown_after.append(time.monotonic() - written)
    assert before != {"amount": "2000.00"}
    print(f"the outside write showed after {shown_after[0]:.2f} s and {shown_after[1]:.2f} s")
