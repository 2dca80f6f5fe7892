"""Per-principal budgets in one process (memory://): each operation is charged its cost
before it runs; over budget it is a 429 with Retry-After and RATE_LIMITED, with no DynamoDB
call; every answer has the RateLimit headers, no-store and nosniff."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

from gateway.auth.tokens import mint_token
from gateway.http.media_types import GRAPHQL_RESPONSE_JSON
from gateway.settings import Settings, SettingsError
from loaders.dynamodb import Dynamo
from schema.principal import DASHBOARD, WRITER
from support.fixed_clock import FixedClock
from support.http_client import END_USER, OTHER_USER, SECRET, gateway_client
from support.metrics_text import value
from tests.conftest import CallCounter

ONE = "{ viewer { id payday { nextDate } } }"  # cost 1: one User field
THREE = "{ viewer { savingsMonths(months: 3) { month } } }"  # cost 3: months multiply
BY_VARIABLE = "query($m: Int) { viewer { savingsMonths(months: $m) { month } } }"


def bearer(clock: FixedClock, sub: str = END_USER, roles: tuple[str, ...] = ()) -> dict[str, str]:
    token = mint_token(SECRET, sub, list(roles), timedelta(hours=1), clock)
    return {"Authorization": f"Bearer {token}"}


def remaining(headers: Any) -> int:
    match = re.fullmatch(r'"[a-z]+";r=(\d+);t=(\d+)', headers["RateLimit"])
    assert match is not None, headers["RateLimit"]
    return int(match.group(1))


async def test_each_operation_is_charged_its_cost_and_refused_over_budget(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    async with gateway_client(settings, dynamo, clock, rate_limit_user="5/minute") as client:
        first = await client.post("/graphql", json={"query": THREE}, headers=bearer(clock))
        calls_before = dynamodb_calls.total
        refused = await client.post(
            "/graphql",
            json={"query": THREE},
            headers={**bearer(clock), "Accept": GRAPHQL_RESPONSE_JSON},
        )
        calls_of_refusal = dynamodb_calls.total - calls_before
        cheaper = await client.post("/graphql", json={"query": ONE}, headers=bearer(clock))
        metrics = (await client.get("/metrics")).text
    assert first.status_code == 200
    assert first.headers["RateLimit-Policy"] == '"user";q=5;w=60'
    assert remaining(first.headers) == 2
    assert refused.status_code == 429
    assert calls_of_refusal == 0
    retry_after = refused.headers["Retry-After"]
    assert retry_after.isdigit()
    assert 1 <= int(retry_after) <= 60
    assert refused.json() == {
        "errors": [
            {
                "message": "The user budget of 5 cost points per 60 s is spent (this operation "
                f"costs 3); retry in {retry_after} s",
                "extensions": {
                    "code": "RATE_LIMITED",
                    "retryAfter": int(retry_after),
                    "limit": {"policy": "user", "points": 5, "windowSeconds": 60},
                    "cost": 3,
                },
            }
        ]
    }
    assert remaining(refused.headers) == 2  # a refusal costs nothing
    assert cheaper.status_code == 200
    assert remaining(cheaper.headers) == 1
    assert value(metrics, "gateway_graphql_errors_total", code="RATE_LIMITED") == 1


async def test_the_charge_is_the_cost_limits_measure_variables_included(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock, rate_limit_user="100/hour") as client:
        answer = await client.post(
            "/graphql", json={"query": BY_VARIABLE, "variables": {"m": 7}}, headers=bearer(clock)
        )
    assert answer.headers["RateLimit-Policy"] == '"user";q=100;w=3600'
    assert remaining(answer.headers) == 93


async def test_another_principal_keeps_its_own_budget(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock, rate_limit_user="3/minute") as client:
        spent = await client.post("/graphql", json={"query": THREE}, headers=bearer(clock))
        refused = await client.post("/graphql", json={"query": ONE}, headers=bearer(clock))
        other = await client.post(
            "/graphql", json={"query": ONE}, headers=bearer(clock, sub=OTHER_USER)
        )
    assert (spent.status_code, refused.status_code, other.status_code) == (200, 429, 200)
    assert other.json() == {"data": {"viewer": {"id": OTHER_USER, "payday": None}}}
    assert remaining(other.headers) == 2


@pytest.mark.parametrize(
    ("roles", "policy"),
    [((), "user"), ((WRITER,), "writer"), ((DASHBOARD, WRITER), "dashboard")],
)
async def test_a_principal_gets_its_most_generous_role(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, roles: tuple[str, ...], policy: str
) -> None:
    budgets = {
        "rate_limit_user": "10/second",  # 10/s
        "rate_limit_writer": "900/minute",  # 15/s
        "rate_limit_dashboard": "72000/hour",  # 20/s
    }
    async with gateway_client(settings, dynamo, clock, **budgets) as client:
        answer = await client.post(
            "/graphql", json={"query": ONE}, headers=bearer(clock, roles=roles)
        )
    assert answer.headers["RateLimit-Policy"].startswith(f'"{policy}";')


@pytest.mark.parametrize(
    ("roles", "policy"),
    [((), "user"), (("auditor",), "user"), ((WRITER,), "writer"), ((DASHBOARD,), "dashboard")],
)
async def test_a_role_budget_below_the_end_users_is_the_roles(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, roles: tuple[str, ...], policy: str
) -> None:
    # Issue 42: the end users' budget was one of every token's, so a writer's could not be
    # set below it.
    budgets = {
        "rate_limit_user": "3000/minute",
        "rate_limit_writer": "1/minute",
        "rate_limit_dashboard": "1/minute",
    }
    async with gateway_client(settings, dynamo, clock, **budgets) as client:
        headers = bearer(clock, roles=roles)
        first = await client.post("/graphql", json={"query": ONE}, headers=headers)
        second = await client.post("/graphql", json={"query": ONE}, headers=headers)
    assert first.headers["RateLimit-Policy"].startswith(f'"{policy}";')
    assert second.status_code == (200 if policy == "user" else 429)


async def test_an_operation_dearer_than_the_whole_budget_is_never_served(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock, rate_limit_user="2/minute") as client:
        refused = await client.post("/graphql", json={"query": THREE}, headers=bearer(clock))
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "60"
    error = refused.json()["errors"][0]
    assert "more than the whole user budget of 2" in error["message"]
    assert error["extensions"]["retryAfter"] == 60


async def test_each_operation_of_a_batch_is_charged(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(
        settings, dynamo, clock, rate_limit_user="5/minute", max_batch_operations=3
    ) as client:
        answer = await client.post(
            "/graphql", json=[{"query": THREE}, {"query": THREE}], headers=bearer(clock)
        )
    first, second = answer.json()
    assert answer.status_code == 200  # partly served
    assert "errors" not in first
    assert second["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
    assert int(answer.headers["Retry-After"]) >= 1


async def test_every_answer_is_kept_by_no_cache(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock, rate_limit_user="1/minute") as client:
        answers = {
            "POST": await client.post("/graphql", json={"query": ONE}, headers=bearer(clock)),
            "GET": await client.get(
                "/graphql", params={"query": ONE}, headers=bearer(clock, sub=OTHER_USER)
            ),
            "429": await client.post("/graphql", json={"query": ONE}, headers=bearer(clock)),
            "401": await client.post("/graphql", json={"query": ONE}),
            "405": await client.put("/graphql", json={"query": ONE}, headers=bearer(clock)),
            "400": await client.post(
                "/graphql",
                content=b"{",
                headers={**bearer(clock), "Content-Type": "application/json"},
            ),
        }
    assert {name: a.status_code for name, a in answers.items()} == {
        "POST": 200,
        "GET": 200,
        "429": 429,
        "401": 401,
        "405": 405,
        "400": 400,
    }
    for name, answer in answers.items():
        assert answer.headers["Cache-Control"] == "no-store", name
        assert answer.headers["X-Content-Type-Options"] == "nosniff", name


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("INSIGHT_RATE_LIMIT_USER", "100", "N/second, N/minute or N/hour"),
        ("INSIGHT_RATE_LIMIT_DASHBOARD", "0/minute", "N/second, N/minute or N/hour"),
        ("INSIGHT_RATE_LIMIT_WRITER", "10/day", "N/second, N/minute or N/hour"),
        ("INSIGHT_RATE_LIMIT_STORAGE_URI", "memcached://x:1", "memory:// or redis://"),
        ("INSIGHT_RATE_LIMIT_FAIL_OPEN", "maybe", "true or false"),
    ],
)
def test_bad_budget_settings_name_the_variable(variable: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=f"{variable} must be .*{re.escape(message)}"):
        Settings.from_environ({variable: value})


def test_budget_settings_are_read() -> None:
    settings = Settings.from_environ(
        {
            "INSIGHT_RATE_LIMIT_USER": " 120 / second ",
            "INSIGHT_RATE_LIMIT_STORAGE_URI": "redis://127.0.0.1:6379/2",
            "INSIGHT_RATE_LIMIT_FAIL_OPEN": "false",
            "INSIGHT_TRUSTED_DOCUMENTS_BYPASS_ROLES": "dashboard, writer",
        }
    )
    assert settings.rate_limit_user == "120/second"
    assert settings.rate_limit_dashboard == "60000/minute"
    assert settings.rate_limit_storage_uri == "redis://127.0.0.1:6379/2"
    assert settings.rate_limit_fail_open is False
    assert settings.trusted_documents_bypass_roles == frozenset({DASHBOARD, WRITER})
    none = Settings.from_environ({"INSIGHT_TRUSTED_DOCUMENTS_BYPASS_ROLES": "none"})
    assert none.trusted_documents_bypass_roles == frozenset()


SELECTION = "savingsMonths(months: 2) { month } payday { nextDate }"  # 3 points a user
ENTITIES = (
    "query($r: [_Any!]!) { _entities(representations: $r) { ... on User { " + SELECTION + " } } }"
)
USERS = "query($ids: [ID!]!) { users(ids: $ids) { " + SELECTION + " } }"


async def test_a_subgraphs_representations_are_charged_as_ids_are(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    ids = [f"user-{n}" for n in range(7)]
    representations = [{"__typename": "User", "id": user_id} for user_id in ids]
    headers = bearer(clock, sub="router", roles=(DASHBOARD,))
    budgets = {"rate_limit_user": "1/hour", "rate_limit_dashboard": "100/hour"}
    async with gateway_client(settings, dynamo, clock, federation=True, **budgets) as client:
        entities = await client.post(
            "/graphql",
            json={"query": ENTITIES, "variables": {"r": representations}},
            headers=headers,
        )
        users = await client.post(
            "/graphql", json={"query": USERS, "variables": {"ids": ids}}, headers=headers
        )
    assert entities.status_code == 200, entities.text
    assert [user["payday"] for user in entities.json()["data"]["_entities"]] == [None] * 7
    assert entities.headers["RateLimit-Policy"] == '"dashboard";q=100;w=3600'
    assert remaining(entities.headers) == 100 - 7 * 3
    assert users.status_code == 200, users.text
    assert remaining(users.headers) == 100 - 2 * 7 * 3
