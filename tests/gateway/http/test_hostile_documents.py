"""Hostile documents over HTTP: each within the older limits, each refused before
graphql-core's validation sees it, each charged to the sender's budget."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from graphql.validation.rules.overlapping_fields_can_be_merged import (
    OverlappingFieldsCanBeMergedRule,
)

from gateway.http.media_types import GRAPHQL_RESPONSE_JSON
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import gateway_client, tokens
from tests.conftest import CallCounter

SIBLINGS = "{ " + "viewer { __typename } " * 495 + "}"
# The same fields, another text: the caches keyed by text do not know it.
REORDERED = "{ viewer { id } " + "viewer { __typename } " * 494 + "}"
CHAIN = (
    "{ viewer { ...F0 } } "
    + " ".join(f"fragment F{n} on User {{ ...F{n + 1} }}" for n in range(240))
    + " fragment F240 on User { id }"
)
HUNDRED_IDS = json.dumps([f"u-{n}" for n in range(100)])
BY_LIMIT = (
    "query($l: Int) { users(ids: " + HUNDRED_IDS + ") { "
    "cashAdvanceScores(limit: $l) { score } incomeDetectionRuns(limit: $l) { runDate } } }"
)


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every time graphql-core's overlap rule is set to work (once per validation)."""
    started: list[object] = []
    original = OverlappingFieldsCanBeMergedRule.__init__

    def counting(rule: Any, context: Any) -> None:
        started.append(rule)
        original(rule, context)

    monkeypatch.setattr(OverlappingFieldsCanBeMergedRule, "__init__", counting)
    return started


async def post(
    client: httpx.AsyncClient, clock: FixedClock, body: dict[str, Any], token: str = "end user"
) -> httpx.Response:
    headers = {
        "Accept": GRAPHQL_RESPONSE_JSON,
        "Authorization": f"Bearer {tokens(clock)[token]()}",
    }
    return await client.post("/graphql", json=body, headers=headers)


def refusal(response: httpx.Response) -> dict[str, Any]:
    errors = response.json()["errors"]
    assert len(errors) == 1, errors
    extensions: dict[str, Any] = errors[0]["extensions"]
    return extensions


@pytest.mark.parametrize(
    ("query", "limit", "actual"),
    [
        # The overlap walk stops once over the limit: the figure is where it stopped.
        (SIBLINGS, "overlapping field pairs", 1001),
        (REORDERED, "overlapping field pairs", 1001),
        (CHAIN, "fragment depth", 241),
        ("{ viewer { " + "...F " * 501 + "} } fragment F on User { id }", "selections", 1003),
    ],
    ids=["495 siblings", "495 siblings reordered", "240-fragment chain", "501 siblings"],
)
async def test_refused_before_validation_with_figures(
    query: str,
    limit: str,
    actual: int,
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    dynamodb_calls: CallCounter,
    validations: list[object],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with gateway_client(settings, dynamo, clock) as client:
        response = await post(client, clock, {"query": query})

    assert response.status_code == 400, response.text
    extensions = refusal(response)
    assert extensions["code"] == "QUERY_TOO_COMPLEX"
    assert extensions["limit"] == limit
    assert extensions["actual"] >= actual
    assert validations == []
    assert dynamodb_calls.total == 0
    assert "Traceback" not in caplog.text
    assert all(record.exc_info is None for record in caplog.records)
    assert len(caplog.text) < 2000


async def test_a_valid_document_reaches_validation(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, validations: list[object]
) -> None:
    # The counter above can see a validation: this document is not refused.
    async with gateway_client(settings, dynamo, clock) as client:
        response = await post(client, clock, {"query": "{ viewer { id } viewer { id } }"})

    assert response.status_code == 200, response.text
    assert response.json()["data"] == {"viewer": {"id": "u-1"}}
    assert len(validations) == 1


@pytest.mark.parametrize("value", [100, 100.0], ids=["Int 100", "Float 100.0"])
async def test_an_int_variable_counts_at_its_coerced_value(
    value: float, settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock) as client:
        body = {"query": BY_LIMIT, "variables": {"l": value}}
        response = await post(client, clock, body, token="dashboard")

    assert response.status_code == 400, response.text
    assert refusal(response) == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "cost",
        "maximum": 10_000,
        "actual": 20_000,
    }


async def test_a_float_within_the_limit_is_charged_its_coerced_cost(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    query = "query($l: Int) { viewer { cashAdvanceScores(limit: $l) { score } } }"
    async with gateway_client(settings, dynamo, clock) as client:
        response = await post(client, clock, {"query": query, "variables": {"l": 50.0}})

    assert response.status_code == 200, response.text
    assert response.headers["RateLimit"] == '"user";r=2950;t=60'


async def test_a_client_sending_only_refused_documents_meets_429(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, validations: list[object]
) -> None:
    statuses = []
    async with gateway_client(settings, dynamo, clock, rate_limit_user="250/minute") as client:
        for query in (SIBLINGS, REORDERED, SIBLINGS):  # 99 points each
            response = await post(client, clock, {"query": query})
            statuses.append(response.status_code)

    assert statuses == [400, 400, 429]
    assert refusal(response)["code"] == "RATE_LIMITED"
    assert int(response.headers["Retry-After"]) >= 1
    assert validations == []


async def test_an_unparsable_document_is_charged_by_its_tokens(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    flood = "{ viewer { " + "id " * 2500 + "} }"
    async with gateway_client(settings, dynamo, clock, rate_limit_user="500/minute") as client:
        first = await post(client, clock, {"query": flood})
        second = await post(client, clock, {"query": flood})

    assert first.status_code == 400, first.text
    assert refusal(first)["code"] == "QUERY_TOO_COMPLEX"
    # Counted up to twice the token limit: 4,000 tokens, 400 points; the second is over.
    assert second.status_code == 429, second.text
    assert refusal(second)["code"] == "RATE_LIMITED"


async def test_a_null_for_a_defaulted_variable_in_a_non_null_argument_is_bad_user_input(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, caplog: pytest.LogCaptureFixture
) -> None:
    # Found by tests/gateway/http/test_hostile_fuzz.py: validation allows `$x: Int = 1` where
    # `Int!` is expected, and graphql-core refuses the explicit null only at the field. It was
    # an INTERNAL_SERVER_ERROR, logged at ERROR with a traceback.
    caplog.set_level(logging.INFO)
    query = "query($x: Int = 1) { viewer { cashAdvanceScores(limit: $x) { score } } }"
    async with gateway_client(settings, dynamo, clock) as client:
        response = await post(client, clock, {"query": query, "variables": {"x": None}})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"] == {"viewer": {"cashAdvanceScores": None}}
    [error] = body["errors"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT"}
    assert error["path"] == ["viewer", "cashAdvanceScores"]
    assert error["message"].startswith("Argument 'limit' has invalid value")
    assert "Traceback" not in caplog.text
    assert all(record.levelno < logging.ERROR for record in caplog.records), caplog.text


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        ("query($l: Int) { viewer { cashAdvanceScores(limit: $l) { score } } }", {"l": 2**70}),
        ("query($l: Int) { viewer { cashAdvanceScores(limit: $l) { score } } }", {"l": 1e300}),
        ("{ viewer { cashAdvanceScores(limit: " + "9" * 5000 + ") { score } } }", None),
    ],
    ids=["a 71-bit variable", "a float variable of 1e300", "a literal of 5,000 digits"],
)
async def test_an_absurd_integer_saturates_the_cost_figure(
    query: str,
    variables: dict[str, Any] | None,
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Found by tests/gateway/http/test_hostile_fuzz.py: the cost counted such a value as
    # sent, and its figure (over 64 bits) made orjson fail the answer: a 500.
    async with gateway_client(settings, dynamo, clock) as client:
        response = await post(client, clock, {"query": query, "variables": variables})

    assert response.status_code == 400, response.text
    assert refusal(response) == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "cost",
        "maximum": 10_000,
        "actual": 2**53 - 1,
    }
    assert "Traceback" not in caplog.text
