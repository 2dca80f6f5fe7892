"""`/metrics` counts what really happened (requests, outcomes, DynamoDB calls, retries,
unprocessed keys, batch sizes), and the JSON logs carry the request id that a masked error
shows the client."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from gateway.cli.demo import ADA, seed_demo
from gateway.observability.logs import JsonFormatter, RequestIdFilter
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.faults import FaultProxy, Refuse, Throttle, Unprocess
from support.fixed_clock import FixedClock
from support.http_client import app_client
from support.metrics_text import samples, value

SECRET = "metrics-tests-secret-0123456789abcdef"
POINTS = f'{{ user(id: "{ADA}") {{ id payday {{ nextDate }} alert {{ alertSent }} }} }}'
MINE = f'{{ user(id: "{ADA}") {{ id alert {{ alertSent }} latestMine {{ minedAt }} }} }}'


@asynccontextmanager
async def serving(
    settings: Settings, proxy: FaultProxy, clock: FixedClock, **overrides: Any
) -> AsyncIterator[httpx.AsyncClient]:
    configured = dataclasses.replace(
        settings,
        dynamodb_endpoint_url=proxy.endpoint_url,
        dynamodb_max_attempts=2,
        auth_hs256_secret=SECRET,
        **overrides,
    )
    async with app_client(configured, clock) as client:
        yield client


async def test_metrics_count_operations_calls_retries_and_unprocessed_keys(
    dynamo: Dynamo, settings: Settings, clock: FixedClock, proxy: FaultProxy
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    async with serving(settings, proxy, clock) as client:
        # 1: a throttled BatchGetItem, retried by botocore: ok.
        proxy.inject("BatchGetItem", Throttle(), times=1)
        assert "errors" not in (await client.post("/graphql", json={"query": POINTS})).json()
        # 2: keys left unprocessed once (two keys), re-requested by Dynamo: ok.
        proxy.inject("BatchGetItem", Unprocess(keep=0), times=1)
        assert "errors" not in (await client.post("/graphql", json={"query": POINTS})).json()
        # 3: a Query throttled past the retries: partial (alert served, latestMine failed).
        proxy.inject("Query", Throttle(), times=1000)
        body = (await client.post("/graphql", json={"query": MINE})).json()
        assert body["data"]["user"]["latestMine"] is None
        assert body["data"]["user"]["alert"] is not None
        assert [e["extensions"]["code"] for e in body["errors"]] == ["DYNAMODB_UNAVAILABLE"]
        scraped = await client.get("/metrics")
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    found = samples(scraped.text)
    ops = "gateway_graphql_operations_total"
    unlisted = {"operation": "query", "operation_name": "(unlisted)"}
    assert value(found, ops, outcome="ok", **unlisted) == 2
    assert value(found, ops, outcome="partial", **unlisted) == 1
    assert value(found, "gateway_graphql_errors_total", code="DYNAMODB_UNAVAILABLE") == 1
    assert value(found, "gateway_graphql_operation_seconds_count", **unlisted) == 3
    calls = "gateway_dynamodb_calls_total"
    # Requests 1 and 3 send one BatchGetItem each; request 2 sends two (the second for
    # the two unprocessed keys).
    assert value(found, calls, operation="batch_get_item", outcome="ok") == 4
    assert value(found, calls, operation="query", outcome="unavailable") == 1
    retries = "gateway_dynamodb_retries_total"
    assert value(found, retries, operation="batch_get_item") == 1
    assert value(found, retries, operation="query") == 1
    unprocessed = "gateway_dynamodb_unprocessed_keys_total"
    assert value(found, unprocessed, operation="batch_get_item") == 2
    assert value(found, "gateway_dynamodb_batch_get_keys_count") == 4
    assert value(found, "gateway_dynamodb_batch_get_keys_sum") == 2 + 2 + 2 + 1
    http = "gateway_http_requests_total"
    assert value(found, http, path="/graphql", status="200") == 3
    assert proxy.injected == {"BatchGetItem": 2, "Query": 2}


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """The gateway's JSON log lines, as `serve` configures them."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield stream
    root.removeHandler(handler)
    root.setLevel(old_level)


async def test_a_masked_error_and_its_log_lines_share_the_request_id(
    settings: Settings, clock: FixedClock, proxy: FaultProxy, json_log: io.StringIO
) -> None:
    # DynamoDB misses a table: our configuration, so the client sees only a masked error.
    proxy.inject("BatchGetItem", Refuse("ResourceNotFoundException"), times=1)
    async with serving(settings, proxy, clock) as client:
        response = await client.post(
            "/graphql", json={"query": POINTS}, headers={"X-Request-ID": "req-7f3a"}
        )
    body = response.json()
    assert response.headers["x-request-id"] == "req-7f3a"
    assert [error["extensions"] for error in body["errors"]] == [
        {"code": "INTERNAL_SERVER_ERROR", "requestId": "req-7f3a"},
        {"code": "INTERNAL_SERVER_ERROR", "requestId": "req-7f3a"},
    ]
    assert "ResourceNotFoundException" not in response.text
    assert settings.tables.pave not in response.text
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    errors = [line for line in lines if line["level"] == "ERROR"]
    assert errors
    assert all(line["request_id"] == "req-7f3a" for line in errors)
    # The log has what the client must not see.
    assert any("ResourceNotFoundException" in line.get("exception", "") for line in errors)
    access = [line for line in lines if line["logger"] == "gateway.access"]
    assert len(access) == 1
    assert access[0]["request_id"] == "req-7f3a"
    assert (access[0]["method"], access[0]["path"], access[0]["status"]) == (
        "POST",
        "/graphql",
        200,
    )
    assert access[0]["duration_ms"] > 0


async def test_keys_dynamodb_refuses_are_bad_input_with_one_log_line(
    settings: Settings, clock: FixedClock, proxy: FaultProxy, json_log: io.StringIO
) -> None:
    # A ValidationException on a read: its keys fail with a code, and the failure log
    # writes one line for the call, not a traceback per field.
    proxy.inject("BatchGetItem", Refuse("ValidationException"), times=1)
    async with serving(settings, proxy, clock) as client:
        response = await client.post("/graphql", json={"query": POINTS})
    body = response.json()
    assert body["data"]["user"] == {"id": ADA, "payday": None, "alert": None}
    assert [error["extensions"]["code"] for error in body["errors"]] == ["BAD_USER_INPUT"] * 2
    assert "ValidationException" not in response.text
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert [line["level"] for line in lines if line["level"] in ("ERROR", "WARNING")] == ["WARNING"]
    (refused,) = [line for line in lines if line["logger"] == "gateway.dynamodb"]
    assert refused["error_code"] == "ValidationException"
