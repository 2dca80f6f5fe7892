"""A request's items are freed when it ends, by reference counting: the loaders and the
execution refer to each other, and without the release they waited for the collector's
older-generation pass (which walking them made a large share of the gateway's CPU). Its
Context, loaders and executor too: nothing of a request waits for the collector."""

from __future__ import annotations

import gc
from typing import Any

from gateway.settings import Settings
from loaders.collections import Collected
from loaders.dynamodb import Dynamo
from schema.context import Context
from schema.execution.executor import ReferenceExecutionContext
from schema.root import build_schema
from support.every_field import every_field
from support.fixed_clock import FixedClock
from support.http_client import gateway_client, tokens
from support.seed import seed_users
from tests.conftest import NOW

USERS = ["memory-a", "memory-b"]
QUERY = f"query($ids: [ID!]!) {{ users(ids: $ids) {every_field(build_schema()._schema, 'User')} }}"


#: What a request makes and nothing should hold past its end.
REQUEST_OBJECTS = (Collected, Context, ReferenceExecutionContext)


def collected_alive() -> set[int]:
    """The request objects alive now (an earlier test's may outlive it: not ours)."""
    return {id(o) for o in gc.get_objects() if isinstance(o, REQUEST_OBJECTS)}


def left_alive(before: set[int]) -> list[Any]:
    """Request objects made since `before`, and wire items of USERS, that nothing but a
    cycle may hold."""
    partitions = {f"USERS#{user}" for user in USERS}
    return [
        o
        for o in gc.get_objects()
        if (isinstance(o, REQUEST_OBJECTS) and id(o) not in before)
        or (
            isinstance(o, dict)
            and isinstance(o.get("PK"), dict)
            and o["PK"].get("S") in partitions
            # Keys alone are no item: moto's server (in this process) keeps each write's
            # stream record, whose `Keys` is such a dict, as long as the stream lasts.
            and o.keys() != {"PK", "SK"}
        )
    ]


async def test_a_request_leaves_no_items_behind(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, collector_off: None
) -> None:
    await seed_users(dynamo, USERS, NOW, settings)
    before = collected_alive()
    headers = {"Authorization": f"Bearer {tokens(clock)['dashboard']()}"}
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post(
            "/graphql", json={"query": QUERY, "variables": {"ids": USERS}}, headers=headers
        )
        assert response.status_code == 200
        users = response.json()["data"]["users"]
        assert [user["id"] for user in users] == USERS
        assert all(user["recurringExpenses"] for user in users)
        assert left_alive(before) == []
