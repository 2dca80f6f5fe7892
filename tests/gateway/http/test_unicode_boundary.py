"""Any Unicode, anywhere in a request, answers cleanly: a lone surrogate (JSON's `"\\ud800"`,
which no UTF-8 text can hold) is refused at the boundary with 400 `BAD_REQUEST`, and an
exception that escapes the app answers a JSON 500 with nothing internal. Every answer here
carries the request id and the protective headers."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response

from gateway.http.media_types import GRAPHQL_RESPONSE_JSON, JSON
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import gateway_client, tokens
from tests.conftest import CallCounter

LONE = "\ud800"
HASH = "0" * 64


def assert_protected(response: httpx.Response, request_id: str) -> None:
    assert response.headers["x-request-id"] == request_id
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-type"].startswith("application/")


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            {"query": "query Q($s: String) { user(id: $s) { id } }", "variables": {"s": LONE}},
            id="in a variable",
        ),
        pytest.param({"query": "{ viewer { id } }", "operationName": LONE}, id="in operationName"),
        pytest.param(
            {
                "query": "{ viewer { id } } # " + LONE,
                "extensions": {"persistedQuery": {"version": 1, "sha256Hash": HASH}},
            },
            id="in a persisted query's text",
        ),
        pytest.param({"query": "{ viewer { id } }", "variables": {LONE: 1}}, id="in a key"),
        pytest.param([{"query": "{ viewer { id } }", "operationName": LONE}], id="in a batch"),
    ],
)
@pytest.mark.parametrize("accept", [JSON, GRAPHQL_RESPONSE_JSON])
async def test_a_lone_surrogate_in_the_body_is_400_bad_request(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    dynamodb_calls: CallCounter,
    body: Any,
    accept: str,
) -> None:
    token = tokens(clock)["end user"]()
    async with gateway_client(settings, dynamo, clock) as client:
        # json.dumps escapes the surrogate as `\ud800`, as a JavaScript client would send it.
        response = await client.post(
            "/graphql",
            content=json.dumps(body),
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": accept,
                "Content-Type": JSON,
                "X-Request-ID": "r-7",
            },
        )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["extensions"] == {"code": "BAD_REQUEST"}
    assert "lone surrogate" in error["message"]
    assert_protected(response, "r-7")
    assert dynamodb_calls.total == 0


async def test_a_surrogate_in_the_variables_parameter_of_a_get_is_400(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    token = tokens(clock)["end user"]()
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.get(
            "/graphql",
            params={
                "query": "query Q($s: ID!) { user(id: $s) { id } }",
                "variables": '{"s": "\\ud800"}',
            },
            headers={"Authorization": f"Bearer {token}", "X-Request-ID": "r-8"},
        )
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"] == {"code": "BAD_REQUEST"}
    assert_protected(response, "r-8")


async def test_percent_encoded_surrogate_bytes_in_a_get_are_answered_escaped(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    # %ED%A0%80 is the surrogate in (invalid) UTF-8: decoded as U+FFFD, and echoed as such.
    token = tokens(clock)["end user"]()
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.get(
            "/graphql?query=%7B%20viewer%20%7B%20id%20%7D%20%7D&operationName=%ED%A0%80",
            headers={"Authorization": f"Bearer {token}", "X-Request-ID": "r-9"},
        )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error == {
        "message": 'Unknown operation named "\ufffd\ufffd\ufffd".',
        "extensions": {"code": "BAD_REQUEST"},
    }
    assert_protected(response, "r-9")


async def test_an_exception_escaping_the_app_is_a_json_500_with_nothing_internal(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(request: Request) -> Response:
        raise RuntimeError("table site-pave-secret is on fire")

    # The route holds the function create_app found: replace it before the app is made.
    monkeypatch.setattr("gateway.app.healthz", broken)
    with caplog.at_level(logging.ERROR):
        async with gateway_client(settings, dynamo, clock) as client:
            response = await client.get("/healthz", headers={"X-Request-ID": "r-500"})
    assert response.status_code == 500
    assert response.json() == {
        "errors": [
            {
                "message": "Internal server error",
                "extensions": {"code": "INTERNAL_SERVER_ERROR", "requestId": "r-500"},
            }
        ]
    }
    assert "site-pave" not in response.text
    assert_protected(response, "r-500")
    # Logged once, by the gateway, under the request id; not left to the server.
    logged = [record for record in caplog.records if record.exc_info]
    assert [record.name for record in logged] == ["gateway.http"]
    assert "r-500" in logged[0].getMessage()
