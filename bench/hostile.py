"""What the worst documents the limits let through cost, next to the dashboard query, and
what four clients sending them do to `/healthz`: `python -m bench hostile`.

1. In process: the median CPU (this process's) of the limits' measures and the gateway's
   validation (its compact form first, schema/extensions/compact_validation.py) of each
   document, uncached, and its ratio to the 100-user dashboard query's; graphql-core's own
   validation of the whole document beside it. Target: at most 5x.
2. The gateway served by uvicorn (one worker, 127.0.0.1; its DynamoDB endpoint a closed
   port, one attempt, so that a read fails at once and nothing but the gateway's CPU is
   measured): `/healthz` latency p50 probed alone, then while 4 clients (another process)
   send the worst documents back to back, each text new (a counter in a comment), so that
   no cache keyed by text answers; their budget is lifted, so none is refused for it.
3. What a repeated dashboard query costs through the schema, as a request pays it: the parser
   and validation caches, the limits, the budget's figure and field usage read from its
   prepared operation (schema/prepared.py), execution itself left out; with the walks of the
   document per request.
4. Issue 42's surfaces (bench/hostile_surfaces.py): the CPU of 1,000 replays of a keyed
   mutation, and the memory of 100 partial heads.
Bounded: fixed iterations and probes, every process on loopback and stopped by its id.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import statistics
import time
from collections.abc import Iterator
from datetime import timedelta

import httpx
from graphql import DocumentNode, ExecutionResult, parse, specified_rules, validate
from prometheus_client import CollectorRegistry
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from bench import processes
from bench.hostile_surfaces import surfaces_figures
from gateway.auth.tokens import mint_token
from gateway.cli.examples import DASHBOARD_QUERY
from gateway.observability.field_usage import FieldUsage
from gateway.settings import Settings
from schema.clock import SystemClock
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions import request_extensions
from schema.extensions.compact_validation import validate_compacted
from schema.extensions.document_shape import fragment_depth, overlap_count, selection_count
from schema.extensions.measures import alias_count, query_cost, query_depth
from schema.prepared import PreparedOperations
from schema.root import build_schema

#: The top-level selections of the widest user the limits let 30 aliases read.
U_ITEMS = [
    "id",
    "payday { predictionDate nextDate frequency source }",
    "incomeVerification { verificationStatus isValid amountInCents lastUpdated }",
    "savingsMonths(months: 3) { month totalAvailable accounts { accountId subtype amount } }",
    "alert { alertSent balanceSetting cooldownUntil }",
    "lowBalanceAlert",
    "recurringExpenses { merchantName amount dueDate category }",
]
U = " ".join(U_ITEMS)
EXTRA = (
    "cashAdvanceScores(limit: 1) { score modelVersion scoredAt } "
    "incomeDetectionRuns(limit: 1) { runDate }"
)
DISTINCT = [
    items for size in range(len(U_ITEMS), 0, -1) for items in itertools.combinations(U_ITEMS, size)
][:30]
#: Candidates for the worst document the default limits accept.
DOCUMENTS = {
    "dashboard query, 100 users": DASHBOARD_QUERY,
    "44 sibling viewer { __typename } (946 pairs)": "{ " + "viewer { __typename } " * 44 + "}",
    "45 sibling viewer { id } (990 pairs)": "{ " + "viewer { id } " * 45 + "}",
    "30 aliased viewers with 35 fields (870 selections)": "{ "
    + " ".join(f"a{n}: viewer {{ {U} }}" for n in range(30))
    + " }",
    # Nothing repeated: each alias its own subset of those selections, the largest first.
    "30 aliased viewers, each its own selection (844, nothing repeated)": "{ "
    + " ".join(f"a{n}: viewer {{ {' '.join(items)} {EXTRA} }}" for n, items in enumerate(DISTINCT))
    + " }",
    "499 spreads of one fragment (999 selections)": "{ viewer { "
    + "...F " * 499
    + "} } fragment F on User { id }",
    "a chain of 50 fragments": "{ viewer { ...F0 } } "
    + " ".join(f"fragment F{n} on User {{ ...F{n + 1} }}" for n in range(49))
    + " fragment F49 on User { id }",
}
RULES = tuple(specified_rules)
SECRET = "bench-hostile-secret-0123456789abcdef"
PROBES = 150
HOSTILE_CLIENTS = 4


def validation_figures(iterations: int = 30) -> None:
    settings = Settings()
    schema = build_schema()._schema
    variables = {"ids": [f"u-{n}" for n in range(100)]}

    def measures(document: DocumentNode) -> None:
        query_depth(document)
        alias_count(document)
        query_cost(schema, document, GATEWAY_COST_POLICY, None, variables)
        selection_count(document)
        fragment_depth(document)
        overlap_count(document, stop_above=settings.max_query_overlaps)

    def gateway(document: DocumentNode) -> None:
        measures(document)
        assert validate_compacted(validate_document, schema, document, RULES) == []

    def whole(document: DocumentNode) -> None:
        measures(document)
        validate(schema, document)

    def median_ms(work: object, document: DocumentNode) -> float:
        samples = []
        for _ in range(iterations):
            started = time.process_time()
            work(document)  # type: ignore[operator]
            samples.append(time.process_time() - started)
        return statistics.median(samples) * 1e3

    base = base_whole = 0.0
    print("measures + validation, median CPU per document, uncached:")
    for name, text in DOCUMENTS.items():
        document = parse(text, max_tokens=settings.max_query_tokens)
        cpu, cpu_whole = median_ms(gateway, document), median_ms(whole, document)
        base, base_whole = base or cpu, base_whole or cpu_whole
        print(
            f"  {name}: {cpu:.2f} ms, {cpu / base:.1f}x the dashboard's "
            f"(graphql-core's whole validation: {cpu_whole:.2f} ms, {cpu_whole / base_whole:.1f}x)"
        )


async def _hostile(url: str, token: str, seconds: float) -> None:
    """HOSTILE_CLIENTS clients sending the worst documents, each text new, for `seconds`."""
    worst = [text for name, text in DOCUMENTS.items() if not name.startswith("dashboard")]
    counter = itertools.count()
    deadline = time.monotonic() + seconds
    headers = {"Authorization": f"Bearer {token}"}

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as http:
            while time.monotonic() < deadline:
                n = next(counter)
                query = f"{worst[n % len(worst)]}\n# {n}"
                await http.post("/graphql", json={"query": query})

    await asyncio.gather(*(client() for _ in range(HOSTILE_CLIENTS)))


def _hostile_process(url: str, token: str, seconds: float) -> None:
    asyncio.run(_hostile(url, token, seconds))


async def _healthz_p50(url: str) -> float:
    """The median of PROBES `/healthz` round trips, one every 20 ms, in ms."""
    samples = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        for _ in range(PROBES):
            started = time.perf_counter()
            response = await http.get("/healthz")
            samples.append(time.perf_counter() - started)
            assert response.status_code == 200, response.text
            await asyncio.sleep(0.02)
    return statistics.median(samples) * 1e3


def healthz_figures() -> None:
    port, closed = processes.free_port(), processes.free_port()
    env = {
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_DYNAMODB_ENDPOINT_URL": f"http://127.0.0.1:{closed}",
        "INSIGHT_DYNAMODB_MAX_ATTEMPTS": "1",
        "INSIGHT_RATE_LIMIT_USER": "999999999/second",
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    token = mint_token(SECRET, "bench-user", [], timedelta(hours=1), SystemClock())
    url = f"http://127.0.0.1:{port}"
    # Quiet: each failed read logs a warning, and the figure is the gateway's CPU, not its logs'.
    with processes.running(processes.gateway(port), port, env, quiet=True) as server:
        alone = asyncio.run(_healthz_p50(url))
        # Long enough to outlast the probes (about PROBES x 20 ms, more when slowed).
        hostile = multiprocessing.Process(target=_hostile_process, args=(url, token, 60.0))
        hostile.start()
        try:
            time.sleep(1.0)  # the clients connected and sending
            cpu = processes.cpu_seconds(server.pid)
            beside = asyncio.run(_healthz_p50(url))
            busy = processes.cpu_seconds(server.pid) - cpu
        finally:
            hostile.terminate()
            hostile.join(10)
    print(f"/healthz p50, one uvicorn worker: {alone:.1f} ms alone")
    print(
        f"/healthz p50 beside {HOSTILE_CLIENTS} clients sending the worst documents: "
        f"{beside:.1f} ms (the gateway's CPU meanwhile: {busy:.1f} s)"
    )


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


def main() -> None:
    validation_figures()
    repeated(300)
    healthz_figures()
    surfaces_figures()
