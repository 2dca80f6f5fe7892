"""HTTP batching (SPEC section 4): a JSON array of operations answered in order, each checked
on its own, the queries of a batch sharing one set of loaders so that the batch waits on
DynamoDB once (counted by a delaying proxy in front of moto), mutations in order."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from gateway.cli.demo import ADA, BOB, CY, seed_demo
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.principal import DASHBOARD, WRITER
from support.faults import Delay, FaultProxy
from support.fixed_clock import FixedClock
from support.http_client import app_client
from support.metrics_text import by_label

SECRET = "batching-tests-secret-0123456789abcdef"
#: Long enough that a second BatchGetItem sent after the first one's answer would show as a
#: second wait; the proxy delays every call, so any extra round is extra calls too.
DELAY = Delay(0.2)


def alert_of(user_id: str) -> str:
    return f'{{ user(id: "{user_id}") {{ id alert {{ alertSent }} }} }}'


@asynccontextmanager
async def serving(
    settings: Settings,
    proxy: FaultProxy,
    clock: FixedClock,
    roles: tuple[str, ...] = (DASHBOARD,),
    **overrides: Any,
) -> AsyncIterator[httpx.AsyncClient]:
    configured = dataclasses.replace(
        settings,
        dynamodb_endpoint_url=proxy.endpoint_url,
        auth_hs256_secret=SECRET,
        # A loaded machine's moto behind a delaying proxy must not read as unavailable.
        dynamodb_read_timeout_seconds=30.0,
        request_deadline_seconds=60.0,
        **overrides,
    )
    cost = {"X-Insight-Cost": "1"}
    async with app_client(configured, clock, roles=roles, headers=cost, http_timeout=60) as client:
        yield client


@pytest.mark.parametrize("budgets", ["memory", "redis"])
async def test_three_queries_over_three_users_wait_on_dynamodb_once(
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    proxy: FaultProxy,
    request: pytest.FixtureRequest,
    budgets: str,
) -> None:
    # With Redis, each operation's budget charge waits on a socket before it executes, so the
    # three reach their reads at different moments; the batch's start gate lines them up.
    storage = "memory://"
    if budgets == "redis":
        storage = request.getfixturevalue("redis_server").uri
    await seed_demo(dynamo, clock.now(), settings)
    async with serving(settings, proxy, clock, rate_limit_storage_uri=storage) as client:
        proxy.reset()
        proxy.inject("BatchGetItem", DELAY, times=100)
        response = await client.post(
            "/graphql", json=[{"query": alert_of(user)} for user in (ADA, BOB, CY)]
        )
    assert response.status_code == 200
    answers = response.json()
    assert [answer["data"]["user"]["id"] for answer in answers] == [ADA, BOB, CY]
    assert [answer["data"]["user"]["alert"] for answer in answers] == [
        {"alertSent": True},
        None,
        None,
    ]
    # The three alerts, three users, went out as ONE BatchGetItem: one DynamoDB wait.
    assert proxy.received == {"BatchGetItem": 1}
    assert proxy.injected == {"BatchGetItem": 1}
    # Each result reports the batch's calls, which it shares.
    for answer in answers:
        assert answer["extensions"]["cost"]["dynamodbCalls"] == 1
        assert answer["extensions"]["cost"]["roundTrips"] == 1


async def test_one_request_per_query_waits_once_per_query(
    dynamo: Dynamo, settings: Settings, clock: FixedClock, proxy: FaultProxy
) -> None:
    # The comparison that makes the test above mean something.
    await seed_demo(dynamo, clock.now(), settings)
    async with serving(settings, proxy, clock) as client:
        proxy.reset()
        for user in (ADA, BOB, CY):
            assert (await client.post("/graphql", json={"query": alert_of(user)})).is_success
    assert proxy.received == {"BatchGetItem": 3}


async def test_an_over_limit_operation_fails_only_its_own_result(
    dynamo: Dynamo, settings: Settings, clock: FixedClock, proxy: FaultProxy
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    # 20 ids of every-field users cost over 10: refused before anything is read.
    dear = "query($ids: [ID!]!) { users(ids: $ids) { alert { alertSent } payday { nextDate } } }"
    async with serving(settings, proxy, clock, max_query_cost=10) as client:
        proxy.reset()
        response = await client.post(
            "/graphql",
            json=[
                {"query": alert_of(ADA)},
                {"query": dear, "variables": {"ids": [ADA] * 20}},
                {"query": alert_of(BOB)},
            ],
        )
    assert response.status_code == 200
    first, refused, third = response.json()
    assert first["data"]["user"] == {"id": ADA, "alert": {"alertSent": True}}
    assert third["data"]["user"] == {"id": BOB, "alert": None}
    assert "data" not in refused
    assert [error["extensions"]["code"] for error in refused["errors"]] == ["QUERY_TOO_COMPLEX"]
    assert proxy.received == {"BatchGetItem": 1}


async def test_eleven_operations_are_refused_whole_ten_answered(
    dynamo: Dynamo, settings: Settings, clock: FixedClock, proxy: FaultProxy
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    assert Settings.from_environ({}).max_batch_operations == 10
    async with serving(settings, proxy, clock, max_batch_operations=10) as client:
        proxy.reset()
        eleven = await client.post("/graphql", json=[{"query": alert_of(ADA)}] * 11)
        assert proxy.received == {}
        empty = await client.post("/graphql", json=[])
        ten = await client.post("/graphql", json=[{"query": alert_of(ADA)}] * 10)
    assert eleven.status_code == 400
    assert eleven.json() == {
        "errors": [
            {
                "message": "A batch holds 1 to 10 operations, not 11",
                "extensions": {"code": "BAD_REQUEST"},
            }
        ]
    }
    assert empty.status_code == 400
    assert empty.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    assert ten.status_code == 200
    assert [answer["data"]["user"]["id"] for answer in ten.json()] == [ADA] * 10
    assert proxy.received == {"BatchGetItem": 1}


async def test_an_operation_without_a_query_fails_only_its_own_result(
    dynamo: Dynamo, settings: Settings, clock: FixedClock, proxy: FaultProxy
) -> None:
    async with serving(settings, proxy, clock) as client:
        response = await client.post(
            "/graphql",
            json=[
                {"query": "{ viewer { id } }"},
                {"variables": {}},
                {"query": "subscription { viewer { id } }"},
            ],
        )
    assert response.status_code == 200
    first, empty, subscription = response.json()
    assert first == {
        "data": {"viewer": {"id": "dash-1"}},
        "extensions": {"cost": {"dynamodbCalls": 0, "roundTrips": 0, "readCapacityUnits": 0}},
    }
    assert empty["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    assert subscription["errors"][0]["extensions"]["code"] == "BAD_REQUEST"


async def test_a_batch_is_200_under_either_media_type(
    dynamo: Dynamo, settings: Settings, clock: FixedClock, proxy: FaultProxy
) -> None:
    batch = [{"query": "{ viewer { id } }"}, {"query": "{ viewer { nope } }"}]
    async with serving(settings, proxy, clock) as client:
        answers = {
            accept: await client.post("/graphql", json=batch, headers={"Accept": accept})
            for accept in ("application/json", "application/graphql-response+json")
        }
        single = await client.post(
            "/graphql", json=batch[1], headers={"Accept": "application/graphql-response+json"}
        )
    for accept, answer in answers.items():
        assert answer.status_code == 200
        assert answer.headers["content-type"] == f"{accept}; charset=utf-8"
        ok, refused = answer.json()
        assert ok["data"] == {"viewer": {"id": "dash-1"}}
        assert refused["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    # Alone, the refused operation is a 400 under graphql-response+json.
    assert single.status_code == 400


async def test_mutations_run_in_order_after_the_queries_before_them(
    dynamo: Dynamo, settings: Settings, clock: FixedClock, proxy: FaultProxy
) -> None:
    read = '{ user(id: "batch-u1") { savingsMonths(months: 1) { month totalAvailable } } }'

    def snapshot(total: str) -> dict[str, Any]:
        mutation = (
            "mutation($t: Decimal!) { recordSavingsSnapshot(input: "
            '{userId: "batch-u1", accounts: [], totalAvailable: $t}) { totalAvailable } }'
        )
        return {"query": mutation, "variables": {"t": total}}

    async with serving(settings, proxy, clock, roles=(DASHBOARD, WRITER)) as client:
        response = await client.post(
            "/graphql",
            json=[
                {"query": read},
                snapshot("1.25"),
                {"query": read},
                snapshot("2.75"),
                {"query": read},
            ],
        )
    assert response.status_code == 200
    before, first, between, second, after = response.json()
    month = clock.now().strftime("%Y-%m")
    assert before["data"]["user"]["savingsMonths"] == []
    assert first["data"]["recordSavingsSnapshot"] == {"totalAvailable": "1.25"}
    assert between["data"]["user"]["savingsMonths"] == [{"month": month, "totalAvailable": "1.25"}]
    assert second["data"]["recordSavingsSnapshot"] == {"totalAvailable": "2.75"}
    assert after["data"]["user"]["savingsMonths"] == [{"month": month, "totalAvailable": "2.75"}]


async def test_metrics_and_logs_count_each_operation_of_a_batch(
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    proxy: FaultProxy,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="gateway.access")
    async with serving(settings, proxy, clock) as client:
        await client.post(
            "/graphql", json=[{"query": "{ viewer { id } }"}, {"query": "{ viewer { nope } }"}] * 2
        )
        text = (await client.get("/metrics")).text
    outcomes = by_label(text, "gateway_graphql_operations_total", "outcome")
    assert outcomes == {"ok": 2.0, "error": 2.0}
    [access] = [
        r
        for r in caplog.records
        if r.name == "gateway.access" and getattr(r, "method", "") == "POST"
    ]
    assert getattr(access, "operations", None) == 4


async def test_a_forbidden_read_fails_only_its_own_place(
    dynamo: Dynamo, settings: Settings, clock: FixedClock, proxy: FaultProxy
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    async with serving(settings, proxy, clock, roles=()) as client:
        proxy.reset()
        response = await client.post(
            "/graphql",
            json=[{"query": "{ viewer { id alert { alertSent } } }"}, {"query": alert_of(ADA)}],
        )
    assert response.status_code == 200
    own, other = response.json()
    # The end user "dash-1" reads its own user; ADA's is refused at its own place.
    assert own["data"] == {"viewer": {"id": "dash-1", "alert": None}}
    assert other["data"] == {"user": None}
    assert [(e["path"], e["extensions"]["code"]) for e in other["errors"]] == [
        (["user"], "FORBIDDEN")
    ]
    assert proxy.received == {"BatchGetItem": 1}
