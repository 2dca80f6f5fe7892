"""What the worst documents the limits let through cost in validation, next to the dashboard
query's: `python -m bench hostile`.

Prints the median CPU (this process's) of the limits' measures and graphql-core's validation
of each document, and its ratio to the 100-user dashboard query's. Bounded: a fixed number of
iterations, in process, no network.
"""

from __future__ import annotations

import statistics
import time

from graphql import DocumentNode, parse, validate

from gateway.cli.examples import DASHBOARD_QUERY
from gateway.settings import Settings
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions.document_shape import fragment_depth, overlap_count, selection_count
from schema.extensions.measures import alias_count, query_cost, query_depth
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
