"""Prometheus metrics: GraphQL operations by type and outcome, HTTP requests by route and
status, DynamoDB calls by operation and outcome, retries, unprocessed keys, batch sizes.

Every metric lives in the app's own registry (not prometheus-client's global one), so two
apps in one process (the tests) count apart."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from graphql import GraphQLError
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
)
from prometheus_client.exposition import generate_latest
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.extensions import SchemaExtension

from gateway.observability.labelled import Children
from gateway.protection.trusted_documents import UNLISTED
from loaders.call_log import CallLog
from loaders.dynamodb import ConditionFailed, FinishedCall
from loaders.errors import DynamoDBUnavailable

#: Operations served: the share of them that read a coordinate is `schema check`'s threshold.
OPERATIONS_METRIC = "gateway_graphql_operations"
#: Seconds: a cached answer is ~1 ms, a cold wide query ~100 ms, the deadline 10 s.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
#: Keys in one BatchGetItem (at most 100).
BATCH_BUCKETS = (1, 2, 5, 10, 25, 50, 75, 100)
#: One operation's DynamoDB calls, round trips and read capacity (its `extensions.cost`).
CALL_BUCKETS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
ROUND_TRIP_BUCKETS = (0, 1, 2, 3, 4, 6, 8)
CAPACITY_BUCKETS = (0, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
#: Routes are labels as declared, so a scan of random paths cannot grow the label set.
KNOWN_PATHS = frozenset({"/graphql", "/healthz", "/readyz", "/metrics"})


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        # process_* (resident memory, CPU, open files): the dashboard's memory and CPU panels
        # and the memory limit's check. The app's registry is not the global one that
        # registers it by default.
        ProcessCollector(registry=r)
        #: An operation's `operation_name` label: its name in the trusted documents (a
        #: bounded set), every other text the one UNLISTED label (see create_app).
        self.operation_label: Callable[[str | None], str] = lambda text: UNLISTED
        self.operations = Counter(
            OPERATIONS_METRIC,
            "GraphQL operations executed, by type (query, mutation), outcome (ok: no error; "
            "error: refused whole, or every root field null with an error; partial: the rest) "
            "and trusted operation name",
            ["operation", "outcome", "operation_name"],
            registry=r,
        )
        self.operation_errors = Counter(
            "gateway_graphql_errors",
            "GraphQL errors answered over HTTP or the WebSocket, by the extensions.code the "
            "client saw (parse, validation, refusals and field errors alike)",
            ["code"],
            registry=r,
        )
        self.idempotency = Counter(
            "gateway_idempotency",
            "Keyed mutations (SPEC section 9) by outcome: first (ran and recorded with its "
            "writes), replayed, reused (422), refused (not recorded: written nothing), "
            "required (refused for want of a key)",
            ["outcome"],
            registry=r,
        )
        self.operation_seconds = Histogram(
            "gateway_graphql_operation_seconds",
            "Time to execute one GraphQL operation",
            ["operation", "operation_name"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.http_requests = Counter(
            "gateway_http_requests",
            "HTTP requests answered, by route and status",
            ["path", "status"],
            registry=r,
        )
        self.http_seconds = Histogram(
            "gateway_http_request_seconds",
            "Time to answer one HTTP request",
            ["path"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.dynamodb_calls = Counter(
            "gateway_dynamodb_calls",
            "DynamoDB calls, by operation and outcome (ok, unavailable, condition_failed, refused)",
            ["operation", "outcome"],
            registry=r,
        )
        self.dynamodb_seconds = Histogram(
            "gateway_dynamodb_call_seconds",
            "Time of one DynamoDB call, botocore's retries included",
            ["operation"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.dynamodb_retries = Counter(
            "gateway_dynamodb_retries",
            "HTTP attempts botocore retried (throttling, 5xx, timeouts, dropped connections)",
            ["operation"],
            registry=r,
        )
        self.unprocessed_keys = Counter(
            "gateway_dynamodb_unprocessed_keys",
            "Keys (BatchGetItem) and items (BatchWriteItem) DynamoDB left unprocessed",
            ["operation"],
            registry=r,
        )
        self.batch_get_keys = Histogram(
            "gateway_dynamodb_batch_get_keys",
            "Keys sent in one BatchGetItem",
            buckets=BATCH_BUCKETS,
            registry=r,
        )

        self.untrusted_operations = Counter(
            "gateway_untrusted_operations",
            "Operations not in the trusted documents: served (audit) or refused (enforce)",
            ["outcome"],
            registry=r,
        )
        self.rate_limit_storage_errors = Counter(
            "gateway_rate_limit_storage_errors",
            "Calls to the budgets' storage (Redis) that failed or timed out",
            registry=r,
        )

        self.operation_dynamodb_calls = Histogram(
            "gateway_graphql_operation_dynamodb_calls",
            "DynamoDB calls one GraphQL operation made (extensions.cost.dynamodbCalls)",
            ["operation"],
            buckets=CALL_BUCKETS,
            registry=r,
        )
        self.operation_round_trips = Histogram(
            "gateway_graphql_operation_dynamodb_round_trips",
            "Longest chain of DynamoDB calls one operation waited on (extensions.cost.roundTrips)",
            ["operation"],
            buckets=ROUND_TRIP_BUCKETS,
            registry=r,
        )
        self.operation_read_units = Histogram(
            "gateway_graphql_operation_read_capacity_units",
            "Read capacity one operation consumed (extensions.cost.readCapacityUnits)",
            ["operation"],
            buckets=CAPACITY_BUCKETS,
            registry=r,
        )
        # The children every request labels, each found once (gateway/observability/labelled.py).
        self.operations_of = Children(self.operations)
        self.operation_seconds_of = Children(self.operation_seconds)
        self.operation_dynamodb_calls_of = Children(self.operation_dynamodb_calls)
        self.operation_round_trips_of = Children(self.operation_round_trips)
        self.operation_read_units_of = Children(self.operation_read_units)
        self.http_requests_of = Children(self.http_requests)
        self.http_seconds_of = Children(self.http_seconds)
        self.dynamodb_calls_of = Children(self.dynamodb_calls)
        self.dynamodb_seconds_of = Children(self.dynamodb_seconds)

    # --- DynamoDB (a Dynamo observer) -------------------------------------------------

    def observe_call(self, call: FinishedCall) -> None:
        self.dynamodb_calls_of(call.operation, _call_outcome(call)).inc()
        self.dynamodb_seconds_of(call.operation).observe(call.seconds)
        if call.retries:
            self.dynamodb_retries.labels(call.operation).inc(call.retries)
        if call.operation == "batch_get_item":
            self.batch_get_keys.observe(
                sum(len(table["Keys"]) for table in call.params["RequestItems"].values())
            )
        if call.response is not None:
            left = _unprocessed(call)
            if left:
                self.unprocessed_keys.labels(call.operation).inc(left)

    # --- GraphQL and HTTP ---------------------------------------------------------------

    def schema_extension(self) -> SchemaExtension:
        """An extension instance for one execution (build_schema takes this factory)."""
        return OperationMetrics(self)

    def count_errors(self, errors: Iterable[Mapping[str, Any]]) -> None:
        """Errors as a client was answered them, over HTTP (a payload's `errors`) or over a
        WebSocket (an `error` message's payload, a `next` message's `errors`): each one
        counted under its `extensions.code` (`UNCODED` without one). The one place either
        transport counts."""
        for error in errors:
            code = (error.get("extensions") or {}).get("code") or "UNCODED"
            self.operation_errors.labels(str(code)).inc()

    def count_idempotency(self, outcome: str) -> None:
        self.idempotency.labels(outcome).inc()

    async def endpoint(self, request: Request) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


def operation_outcome(data: Mapping[str, Any] | None, errors: Sequence[GraphQLError]) -> str:
    """`ok`: no error. `error`: nothing was served: the operation was refused whole (no
    `data`), or each of its root fields is null with an error of its own (a mutation refused
    with `FORBIDDEN` or `BAD_USER_INPUT` answers `{"data": {"m": null}}`, and served nothing).
    `partial`: the rest, some data served beside errors."""
    if not errors:
        return "ok"
    if data is None:
        return "error"
    failed_roots = {error.path[0] for error in errors if error.path}
    if all(served is None and key in failed_roots for key, served in data.items()):
        return "error"
    return "partial"


def _call_outcome(call: FinishedCall) -> str:
    if call.error is None:
        return "ok"
    if isinstance(call.error, DynamoDBUnavailable):
        return "unavailable"
    if isinstance(call.error, ConditionFailed):
        return "condition_failed"
    return "refused"


def _unprocessed(call: FinishedCall) -> int:
    assert call.response is not None
    if call.operation == "batch_get_item":
        left = call.response.get("UnprocessedKeys") or {}
        return sum(len(table.get("Keys", ())) for table in left.values())
    if call.operation == "batch_write_item":
        return sum(len(writes) for writes in (call.response.get("UnprocessedItems") or {}).values())
    return 0


class OperationMetrics(SchemaExtension):
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        yield
        seconds = time.perf_counter() - started
        context = self.execution_context
        try:
            operation = context.operation_type.value
        except Exception:  # no parsable document: there is no operation type to name
            operation = "unknown"
        result = context.result
        outcome = operation_outcome(
            result.data if result is not None else None,
            (result.errors if result is not None else None) or [],
        )
        name = self.metrics.operation_label(context.query)
        metrics = self.metrics
        metrics.operations_of(operation, outcome, name).inc()
        metrics.operation_seconds_of(operation, name).observe(seconds)
        calls = getattr(context.context, "calls", None)
        if isinstance(calls, CallLog):
            metrics.operation_dynamodb_calls_of(operation).observe(calls.calls)
            metrics.operation_round_trips_of(operation).observe(calls.round_trips)
            metrics.operation_read_units_of(operation).observe(calls.read_capacity_units)


class HttpMetrics:
    """Counts and times every HTTP request by route and status (pure ASGI: no extra task)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"] if scope["path"] in KNOWN_PATHS else "other"
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self.metrics.http_requests_of(path, str(status)).inc()
            self.metrics.http_seconds_of(path).observe(time.perf_counter() - started)
