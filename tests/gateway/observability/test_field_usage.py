"""Field usage per client: each operation's schema coordinates counted under its client's
name in `gateway_field_usage_total`, computed once per document, client names bounded."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx
import pytest
from graphql import parse
from prometheus_client import CollectorRegistry
from starlette.applications import Starlette

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.observability.field_usage import FieldUsage, bind_client
from gateway.settings import Settings
from gateway.state import Resources
from loaders.dynamodb import Dynamo
from schema.extensions.coordinates import Coordinates, coordinates_of
from schema.principal import DASHBOARD, WRITER
from schema.root import build_schema
from support.fixed_clock import FixedClock
from support.metrics_text import series

SECRET = "usage-tests-secret-0123456789abcdef"
ALERT = '{ user(id: "u-7") { id alert { alertSent } } }'


@asynccontextmanager
async def serving(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, **overrides: Any
) -> AsyncIterator[tuple[Starlette, httpx.AsyncClient]]:
    app = create_app(
        dataclasses.replace(settings, auth_hs256_secret=SECRET, **overrides), clock=clock
    )
    app.state.resources = Resources(dynamo)
    token = mint_token(SECRET, "dash-1", [DASHBOARD, WRITER], timedelta(hours=1), clock)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app),
        base_url="http://gateway",
        headers={"Authorization": f"Bearer {token}"},
    ) as client:
        yield app, client


def usage(text: str) -> dict[tuple[str, str, str], float]:
    return {
        (labels["coordinate"], labels["client"], labels["client_version"]): count
        for labels, count in series(text, "gateway_field_usage_total")
    }


def test_coordinates_of_fields_arguments_fragments_and_literals() -> None:
    schema = build_schema()._schema
    document = parse(
        """
        query Q($ids: [ID!]!) {
          __typename
          users(ids: $ids) { ...Money savingsMonths(months: 2) { month } }
          __schema { queryType { name } }
        }
        fragment Money on User { id alert { alertSent } ... on User { payday { nextDate } } }
        mutation M {
          evaluateBalanceAlert(input: {userId: "u", availableBalance: "1", currentBalance: "2"}) {
            decision
          }
        }
        """
    )

    assert coordinates_of(schema, document, "Q") == {
        "Query.users",
        "Query.users(ids:)",
        "User.id",
        "User.alert",
        "BalanceAlert.alertSent",
        "User.payday",
        "PaydayPrediction.nextDate",
        "User.savingsMonths",
        "User.savingsMonths(months:)",
        "SavingsMonth.month",
    }
    assert coordinates_of(schema, document, "M") == {
        "Mutation.evaluateBalanceAlert",
        "Mutation.evaluateBalanceAlert(input:)",
        "EvaluateBalanceAlertInput.userId",
        "EvaluateBalanceAlertInput.availableBalance",
        "EvaluateBalanceAlertInput.currentBalance",
        "BalanceAlertEvaluation.decision",
    }


async def test_three_requests_of_a_named_client_show_under_user_alert(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[object] = []
    walk = coordinates_of

    def walking(*arguments: Any) -> frozenset[str]:
        walks.append(arguments[1])
        return walk(*arguments)

    monkeypatch.setattr("schema.prepared.coordinates_of", walking)
    async with serving(settings, dynamo, clock) as (_, client):
        for _ in range(3):
            answer = await client.post(
                "/graphql",
                json={"query": ALERT},
                headers={
                    "apollographql-client-name": "ops-dashboard",
                    "apollographql-client-version": "2.4.1",
                },
            )
            assert "errors" not in answer.json()
        await client.post(
            "/graphql",
            json={"query": '{ user(id: "u-7") { payday { nextDate } } }'},
            headers={"graphql-client-name": "ios"},
        )
        await client.post("/graphql", json={"query": ALERT})
        # Refused by validation: it executes nothing and counts nothing.
        await client.post("/graphql", json={"query": '{ user(id: "u-7") { alert { nope } } }'})
        counted = usage((await client.get("/metrics")).text)

    assert counted[("User.alert", "ops-dashboard", "2.4.1")] == 3
    assert counted[("Query.user(id:)", "ops-dashboard", "2.4.1")] == 3
    assert counted[("BalanceAlert.alertSent", "ops-dashboard", "2.4.1")] == 3
    assert counted[("User.payday", "ios", "")] == 1
    assert counted[("User.alert", "unknown", "")] == 1
    assert ("User.alert", "ios", "") not in counted
    assert sum(v for (c, _, _), v in counted.items() if c == "User.alert") == 4
    # Walked once per document: 2 texts executed (the refused one never reaches counting).
    assert len(walks) == 2


async def test_each_operation_of_a_batch_counts(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with serving(settings, dynamo, clock) as (_, client):
        await client.post(
            "/graphql", json=[{"query": ALERT}] * 3, headers={"graphql-client-name": "web"}
        )
        counted = usage((await client.get("/metrics")).text)
    assert counted[("User.alert", "web", "")] == 3


async def test_client_names_are_bounded(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with serving(settings, dynamo, clock, field_usage_max_clients=2) as (_, client):
        for name in ("a", "b", "c", "d", "a"):
            await client.post(
                "/graphql", json={"query": ALERT}, headers={"graphql-client-name": name}
            )
        counted = usage((await client.get("/metrics")).text)
    alert = {label[1:]: value for label, value in counted.items() if label[0] == "User.alert"}
    assert alert == {("a", ""): 2, ("b", ""): 1, ("other", ""): 2}


@pytest.mark.parametrize("header", ["x" * 500, "\x07bell\u200b"])
def test_a_header_cannot_make_an_unbounded_label(header: str) -> None:
    bind_client({"graphql-client-name": header})
    field_usage = FieldUsage(CollectorRegistry(), max_clients=5)
    schema = build_schema()._schema
    field_usage.count(Coordinates(coordinates_of(schema, parse(ALERT))))
    [(_, client, _)] = {key for key in field_usage.totals() if key[0] == "User.alert"}
    assert len(client) <= 64
    assert client.isprintable()
