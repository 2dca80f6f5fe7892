"""GetOperation (the GraphQL specification): a document of several operations runs the one
`operationName` names; with no name it is refused (400 `BAD_REQUEST`, as an unknown name
is), whichever media type is asked for, and nothing is read."""

from __future__ import annotations

import json

import pytest

from gateway.http.media_types import GRAPHQL_RESPONSE_JSON, JSON
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import gateway_client, tokens
from tests.conftest import CallCounter

TWO_OPERATIONS = "query A { viewer { id } } query B { viewer { lowBalanceAlert } }"


@pytest.mark.parametrize("accept", [JSON, GRAPHQL_RESPONSE_JSON])
async def test_several_operations_and_no_operation_name_is_400(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    dynamodb_calls: CallCounter,
    accept: str,
) -> None:
    token = tokens(clock)["end user"]()
    headers = {"Authorization": f"Bearer {token}", "Accept": accept, "X-Request-ID": "r-op"}
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post("/graphql", json={"query": TWO_OPERATIONS}, headers=headers)
        got = await client.get("/graphql", params={"query": TWO_OPERATIONS}, headers=headers)
    for answer in (response, got):
        assert answer.status_code == 400
        assert answer.json() == {
            "errors": [
                {
                    "message": "Must provide operation name if query contains multiple operations.",
                    "extensions": {"code": "BAD_REQUEST"},
                }
            ]
        }
        assert answer.headers["x-request-id"] == "r-op"
        assert answer.headers["cache-control"] == "no-store"
    assert dynamodb_calls.total == 0


async def test_the_named_operation_of_several_runs(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    token = tokens(clock)["end user"]()
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post(
            "/graphql",
            content=json.dumps({"query": TWO_OPERATIONS, "operationName": "A"}),
            headers={"Authorization": f"Bearer {token}", "Content-Type": JSON},
        )
    assert (response.status_code, response.json()) == (200, {"data": {"viewer": {"id": "u-1"}}})


async def test_in_a_batch_only_that_operation_is_refused(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    token = tokens(clock)["end user"]()
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post(
            "/graphql",
            json=[{"query": TWO_OPERATIONS}, {"query": "{ viewer { id } }"}],
            headers={"Authorization": f"Bearer {token}"},
        )
    assert response.status_code == 200
    refused, served = response.json()
    assert refused["errors"][0]["extensions"] == {"code": "BAD_REQUEST"}
    assert served == {"data": {"viewer": {"id": "u-1"}}}
