"""A DynamoDB call that fails after its retries is written once at WARNING with its cause;
under a sustained outage the lines stay bounded per kind of failure while the metrics count
every failure."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError, ReadTimeoutError

from gateway.cli.demo import ADA, seed_demo
from gateway.observability.dynamodb_failures import FailureLog
from gateway.observability.logs import JsonFormatter, RequestIdFilter
from gateway.observability.metrics import Metrics
from gateway.settings import Settings
from loaders.dynamodb import Dynamo, FinishedCall
from loaders.errors import DynamoDBUnavailable
from support.faults import (
    Delay,
    Drop,
    Fault,
    FaultProxy,
    ServerError,
    Throttle,
    Unprocess,
)
from support.fixed_clock import FixedClock
from support.metrics_text import samples, value
from tests.gateway.observability.test_metrics_and_logs import serving

MINE = f'{{ user(id: "{ADA}") {{ id alert {{ alertSent }} latestMine {{ minedAt }} }} }}'
POINTS = f'{{ user(id: "{ADA}") {{ id payday {{ nextDate }} alert {{ alertSent }} }} }}'


@pytest.fixture
def failure_lines() -> Iterator[io.StringIO]:
    """The `gateway.dynamodb` logger's lines, as JSON, as `serve` writes them."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    log = logging.getLogger("gateway.dynamodb")
    log.addHandler(handler)
    yield stream
    log.removeHandler(handler)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


@pytest.mark.parametrize(
    ("fault", "code"),
    [
        (Throttle(), "ProvisionedThroughputExceededException"),
        (ServerError(), "InternalServerError"),
        (Delay(3.0), "ReadTimeoutError"),
        (Drop(), "ConnectionClosedError"),
    ],
    ids=repr,
)
async def test_a_query_failing_past_its_retries_is_one_warning_with_its_cause(
    fault: Fault,
    code: str,
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    proxy: FaultProxy,
    failure_lines: io.StringIO,
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    async with serving(settings, proxy, clock, dynamodb_read_timeout_seconds=0.5) as client:
        proxy.inject("Query", fault, times=1000)
        response = await client.post(
            "/graphql", json={"query": MINE}, headers={"X-Request-ID": "dash-req-1"}
        )
        body = response.json()
        assert body["data"]["user"]["latestMine"] is None
        assert body["data"]["user"]["alert"] is not None
        found = samples((await client.get("/metrics")).text)

    [line] = lines(failure_lines)
    assert line["level"] == "WARNING"
    assert line["logger"] == "gateway.dynamodb"
    assert line["request_id"] == "dash-req-1"
    assert line["dynamodb_operation"] == "Query"
    assert line["tables"] == [settings.tables.pave]
    assert line["error_code"] == code
    assert line["attempts"] == 2 == proxy.injected["Query"]
    assert line["elapsed_ms"] > 0
    assert line["suppressed"] == 0
    if isinstance(fault, Throttle | ServerError):
        # The proxy answered with a request id, as DynamoDB does: AWS support finds it.
        assert len(line["aws_request_id"]) == 32
    else:
        assert line["aws_request_id"] is None
    assert (
        f"DynamoDB Query on {settings.tables.pave} failed after 2 attempt(s)" in (line["message"])
    )
    assert value(found, "gateway_dynamodb_calls_total", operation="query", outcome="unavailable")


async def test_keys_left_unprocessed_past_the_deadline_are_one_warning(
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    proxy: FaultProxy,
    failure_lines: io.StringIO,
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    async with serving(settings, proxy, clock, dynamodb_unprocessed_deadline_seconds=0.3) as client:
        proxy.inject("BatchGetItem", Unprocess(keep=0), times=10_000)
        body = (await client.post("/graphql", json={"query": POINTS})).json()
    assert body["data"] == {"user": {"id": ADA, "payday": None, "alert": None}}

    [line] = lines(failure_lines)
    assert line["dynamodb_operation"] == "BatchGetItem"
    assert line["error_code"] == "UnprocessedPastDeadline"
    assert line["tables"] == [settings.tables.pave]
    assert line["attempts"] == proxy.injected["BatchGetItem"]
    assert "2 keys left unprocessed" in line["message"]


def throttled_call(operation: str = "query") -> FinishedCall:
    error = ClientError(
        {
            "Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"},
            "ResponseMetadata": {
                "RequestId": "AWS-REQ",
                "HTTPStatusCode": 400,
                "HTTPHeaders": {},
                "HostId": "",
                "RetryAttempts": 2,
            },
        },
        "Query",
    )
    return FinishedCall(
        operation=operation,
        params={"TableName": "site-pave"},
        seconds=0.25,
        attempts=3,
        response=None,
        error=DynamoDBUnavailable(cause=error),
    )


def timed_out_call() -> FinishedCall:
    cause = ReadTimeoutError(endpoint_url="http://dynamodb")
    return FinishedCall(
        "query", {"TableName": "site-pave"}, 2.0, 3, None, DynamoDBUnavailable(cause=cause)
    )


def test_a_sustained_outage_writes_a_bounded_log_and_counts_what_it_suppressed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [100.0]
    failures = FailureLog(per_second=3, clock=lambda: now[0])
    metrics = Metrics()
    caplog.set_level(logging.WARNING, logger="gateway.dynamodb")

    for _ in range(1000):
        call = throttled_call()
        failures.observe_call(call)
        metrics.observe_call(call)
    # Other kinds of failure have budgets of their own.
    failures.observe_call(timed_out_call())
    failures.observe_call(
        FinishedCall(
            "query", {"TableName": "t"}, 9.5, 1, None, DynamoDBUnavailable(cause=TimeoutError())
        )
    )
    now[0] += 0.5
    failures.observe_call(throttled_call())
    now[0] += 0.5
    failures.observe_call(throttled_call())

    written = [record for record in caplog.records if record.name == "gateway.dynamodb"]
    assert [(r.__dict__["error_code"], r.__dict__["suppressed"]) for r in written] == [
        ("ProvisionedThroughputExceededException", 0),
        ("ProvisionedThroughputExceededException", 0),
        ("ProvisionedThroughputExceededException", 0),
        ("ReadTimeoutError", 0),
        ("RequestDeadlineExceeded", 0),
        # The next second's first line says how many of its kind were left out.
        ("ProvisionedThroughputExceededException", 998),
    ]
    assert written[-1].getMessage().endswith("(998 more like it suppressed)")
    assert written[0].__dict__["aws_request_id"] == "AWS-REQ"
    counted = metrics.dynamodb_calls.labels("query", "unavailable")._value.get()
    assert counted == 1000
