"""What the worst documents the limits let through cost in validation, next to the dashboard
query's: `python -m bench hostile`.

Prints the median CPU (this process's) of the limits' measures and graphql-core's validation
of each document, and its ratio to the 100-user dashboard query's; then what a repeated
dashboard query costs through the schema, as a request pays it: the parser and validation
caches, the limits, the budget's figure and field usage read from its prepared operation
(schema/prepared.py), execution itself left out; with the walks of the document per request.
Bounded: a fixed number of iterations, in process, no network.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator

from graphql import DocumentNode, ExecutionResult, parse, validate
from prometheus_client import CollectorRegistry
from strawberry.extensions import SchemaExtension

from gateway.cli.examples import DASHBOARD_QUERY
from gateway.observability.field_usage import FieldUsage
from gateway.settings import Settings
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions import request_extensions
from schema.extensions.document_shape import fragment_depth, overlap_count, selection_count
from schema.extensions.measures import alias_count, query_cost, query_depth
from schema.prepared import PreparedOperations
from schema.root import build_schema

U = (
    "id payday { predictionDate nextDate frequency source } incomeVerification { "
    "verificationStatus isValid amountInCents lastUpdated } savingsMonths(months: 3) { month "
    "totalAvailable accounts { accountId subtype amount } } alert { alertSent balanceSetting "
    "cooldownUntil } lowBalanceAlert recurringExpenses { merchantName amount dueDate category }"
)
#: Candidates for the worst document the default limits accept.
DOCUMENTS = {
    "dashboard query, 100 users": DASHBOARD_QUERY,
    "44 sibling viewer { __typename } (946 pairs)": "{ " + "viewer { __typename } " * 44 + "}",
    "45 sibling viewer { id } (990 pairs)": "{ " + "viewer { id } " * 45 + "}",
    "30 aliased viewers with 35 fields (1,832 tokens)": "{ "
    + " ".join(f"a{n}: viewer {{ {U} }}" for n in range(30))
    + " }",
    "499 spreads of one fragment (999 selections)": "{ viewer { "
    + "...F " * 499
    + "} } fragment F on User { id }",
    "a chain of 50 fragments": "{ viewer { ...F0 } } "
    + " ".join(f"fragment F{n} on User {{ ...F{n + 1} }}" for n in range(49))
    + " fragment F49 on User { id }",
}


def main(iterations: int = 30) -> None:
    settings = Settings()
    schema = build_schema()._schema
    variables = {"ids": [f"u-{n}" for n in range(100)]}

    def work(document: DocumentNode) -> list[object]:
        figures = [
            query_depth(document),
            alias_count(document),
            query_cost(schema, document, GATEWAY_COST_POLICY, None, variables),
            selection_count(document),
            fragment_depth(document),
            overlap_count(document, stop_above=settings.max_query_overlaps),
        ]
        return [*figures, validate(schema, document)]

    base = None
    for name, text in DOCUMENTS.items():
        document = parse(text, max_tokens=settings.max_query_tokens)
        figures = work(document)
        assert figures[-1] == [], (name, figures[-1])
        samples = []
        for _ in range(iterations):
            started = time.process_time()
            work(document)
            samples.append(time.process_time() - started)
        cpu = statistics.median(samples) * 1e3
        base = base or cpu
        print(
            f"{name}: {cpu:.2f} ms CPU (measures + validation), {cpu / base:.1f}x the dashboard's"
        )

    repeated(iterations * 10)


class _NotExecuted(SchemaExtension):
    """Ends the operation where execution would start, as a budget refusal does."""

    def on_execute(self) -> Iterator[None]:
        self.execution_context.result = ExecutionResult(data=None)
        yield


def repeated(iterations: int) -> None:
    """The dashboard query, repeated, through the app's measuring extensions."""
    settings = Settings()
    prepared = PreparedOperations(GATEWAY_COST_POLICY)
    usage = FieldUsage(CollectorRegistry())
    schema = build_schema(
        [
            *request_extensions(settings.query_limits, prepared),
            usage.schema_extension,
            _NotExecuted,
        ],
        prepared=prepared,
    )
    variables = {"ids": [f"u-{n}" for n in range(100)]}

    def once() -> None:
        result = schema.execute_sync(
            DASHBOARD_QUERY, variable_values=variables, operation_name="Dashboard"
        )
        assert not result.errors, result.errors

    once()
    walked = prepared.preparations
    samples = []
    for _ in range(iterations):
        started = time.process_time()
        once()
        samples.append(time.process_time() - started)
    cpu = statistics.median(samples) * 1e6
    walks = (prepared.preparations - walked) / iterations
    print(
        f"dashboard query, 100 users, repeated: {cpu:.1f} µs CPU per request (parse and "
        f"validation caches, limits, charge figure, field usage); {walks:.0f} preparations "
        f"(walks of the document) per request, {walked} for the first"
    )
