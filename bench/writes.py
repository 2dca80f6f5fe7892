"""`python -m bench writes` (and the end of `make bench`): what a retry-safe mutation costs.

`recordPaydayPrediction` (a row and its capture event) through one gateway process: keyed
(a new Idempotency-Key each request: the record's look-up, then one TransactWriteItems of the
two items and the record), unkeyed (one TransactWriteItems of the two items), and a replay
(the same key again: the look-up alone). Beside them, the unkeyed mutation as it was before
issue 30: two PutItems, no transaction. That path is gone from the gateway, so it is measured
directly, on the gateway's own client settings: the same writer builds the two items, and
they are sent as the old code sent them (the row, then the event); a direct
TransactWriteItems of the same items beside it.

Over moto's server (a process of this run's own): dynalite has no TransactWriteItems. moto's
latencies are not DynamoDB's (moto copies every table a transaction touches, to roll it
back, so its transactions slow as the tables grow); the DynamoDB calls per request are.
Calls are counted on the gateway's own `/metrics` (`gateway_dynamodb_calls_total`) around
each request, and on the direct client by botocore's events. Bounded: a warm-up, then
MAX_REQUESTS rounds of every row in turns, or MAX_SECONDS.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import aioboto3
import aiohttp

from bench import processes
from bench.load.moto_process import MotoServer
from bench.report import Row
from bench.run import SECRET, common_env
from gateway.auth.tokens import mint_token
from gateway.resources import client_config
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames, create_tables
from loaders.transactions import Writes, commit
from loaders.writers.payday import record_payday_prediction as stage_payday
from schema.clock import SystemClock
from schema.principal import WRITER
from support.metrics_text import series

WARMUP = 5
MAX_REQUESTS = 200
MAX_SECONDS = 30.0
USER = "bench-writer-000"
PAYDAY = """mutation Payday($input: RecordPaydayPredictionInput!) {
  recordPaydayPrediction(input: $input) { loanId nextDate createdDate } }"""
INPUT = {
    "userId": USER,
    "loanId": "loan-1",
    "detectionUsed": "FLOATME_V2_PAYDAY_CALCULATION",
    "nextDate": "2026-12-11",
    "source": "ACME PAYROLL",
    "frequency": "biweekly",
    "v2": {"payday": "2026-12-11", "frequency": "biweekly"},
}
CALLS = "gateway_dynamodb_calls_total"


@dataclass
class WriteRow:
    row: Row
    send: Callable[[], Awaitable[Counter[str]]]
    operations: Counter[str] = field(default_factory=Counter)

    @property
    def calls(self) -> float:
        return sum(self.operations.values()) / max(len(self.row.latencies), 1)

    def named_calls(self) -> str:
        count = max(len(self.row.latencies), 1)
        return " + ".join(
            f"{n / count:g} {operation}" for operation, n in sorted(self.operations.items())
        )


def command() -> dict[str, Any]:
    """The mutation's input values, by field name (what `PaydayRow.written` checks)."""
    return {
        "user_id": USER,
        "loan_id": "loan-1",
        "detection_used": "FLOATME_V2_PAYDAY_CALCULATION",
        "next_date": date(2026, 12, 11),
        "source": "ACME PAYROLL",
        "frequency": "biweekly",
        "v2": {"payday": date(2026, 12, 11), "frequency": "biweekly"},
    }


async def calls_of(http: aiohttp.ClientSession, url: str) -> Counter[str]:
    async with http.get(url + "/metrics") as answer:
        text = await answer.text()
    # The metric's label is botocore's method name (get_item); the direct rows count the
    # API's (GetItem).
    return Counter({_api_name(labels["operation"]): int(n) for labels, n in series(text, CALLS)})


def _api_name(method: str) -> str:
    return "".join(part.title() for part in method.split("_"))


def gateway_sender(
    http: aiohttp.ClientSession, url: str, token: str, key: Callable[[], str | None]
) -> Callable[[], Awaitable[Counter[str]]]:
    body = {"query": PAYDAY, "variables": {"input": INPUT}}

    async def send() -> Counter[str]:
        headers = {"Authorization": f"Bearer {token}"}
        sent = key()
        if sent is not None:
            headers["Idempotency-Key"] = sent
        before = await calls_of(http, url)
        started = time.perf_counter()
        async with http.post(url + "/graphql", json=body, headers=headers) as response:
            answer = await response.json()
        elapsed = time.perf_counter() - started
        if response.status != 200 or answer.get("errors"):
            raise RuntimeError(f"{url} answered {response.status}: {str(answer)[:300]}")
        made = await calls_of(http, url)
        made.subtract(before)
        made["_seconds"] = int(elapsed * 1e9)
        return +made

    return send


def direct_sender(
    dynamo: Dynamo, counted: Counter[str], *, transaction: bool
) -> Callable[[], Awaitable[Counter[str]]]:
    async def send() -> Counter[str]:
        writes = Writes()
        counted.clear()
        started = time.perf_counter()
        stage_payday(writes, command(), datetime.now(UTC))
        if transaction:
            await commit(dynamo, writes.staged)
        else:
            # As recordPaydayPrediction wrote before issue 30: the row, then the event.
            for entry in writes.staged:
                assert entry.item is not None
                await dynamo.put(entry.table, entry.item)
        elapsed = time.perf_counter() - started
        made = Counter(counted)
        made["_seconds"] = int(elapsed * 1e9)
        return made

    return send


async def measure(rows: list[WriteRow]) -> None:
    for row in rows:
        for _ in range(WARMUP):
            await row.send()
    started = time.monotonic()
    while len(rows[0].row.latencies) < MAX_REQUESTS and time.monotonic() - started < MAX_SECONDS:
        for row in rows:
            made = await row.send()
            row.row.latencies.append(made.pop("_seconds") / 1e9)
            row.operations.update(made)


async def write_rows(url: str, moto_url: str) -> list[WriteRow]:
    token = mint_token(SECRET, "bench-writer", [WRITER], timedelta(hours=2), SystemClock())
    replayed = uuid.uuid4().hex
    counted: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        counted[model.name] += 1

    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=4))
        )
        client = await stack.enter_async_context(
            aioboto3.Session().client(
                "dynamodb",
                endpoint_url=moto_url,
                region_name="us-east-1",
                config=client_config(Settings()),
            )
        )
        client.meta.events.register("before-parameter-build.dynamodb", count)
        dynamo = Dynamo(client, TableNames())
        rows = [
            WriteRow(Row("mutation, keyed", 1), gateway_sender(http, url, token, _new_key)),
            WriteRow(Row("mutation, unkeyed", 1), gateway_sender(http, url, token, lambda: None)),
            WriteRow(
                Row("mutation, replay", 1), gateway_sender(http, url, token, lambda: replayed)
            ),
            WriteRow(
                Row("unkeyed as it was (direct, 2 PutItems)", 1),
                direct_sender(dynamo, counted, transaction=False),
            ),
            WriteRow(
                Row("direct, 1 TransactWriteItems", 1),
                direct_sender(dynamo, counted, transaction=True),
            ),
        ]
        await measure(rows)
    return rows


def _new_key() -> str:
    return uuid.uuid4().hex


def print_rows(rows: list[WriteRow]) -> None:
    print()
    print(
        "recordPaydayPrediction (2 items), over moto's server (dynalite has no "
        "TransactWriteItems); one gateway process; DynamoDB calls per request:"
    )
    header = f"{'write':<40}{'calls':>6}{'p50 ms':>9}{'p99 ms':>9}{'n':>5}  calls by operation"
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row.row.name:<40}{row.calls:>6g}{row.row.p50_ms:9.1f}{row.row.p99_ms:9.1f}"
            f"{len(row.row.latencies):>5}  {row.named_calls()}"
        )
    print(
        "  the unkeyed mutation as it was (two PutItems) is no longer a gateway path: it is "
        "measured directly, with the gateway's writer and client settings; moto copies each "
        "table a transaction touches, so its transactions cost more than DynamoDB's"
    )


def run_writes() -> None:
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    moto = MotoServer()
    moto.start()
    try:
        asyncio.run(_prepare(moto.endpoint_url))
        port = processes.free_port()
        env = {
            **common_env(moto.endpoint_url),
            "INSIGHT_RATE_LIMIT_WRITER": "999999999/second",
        }
        with processes.running(processes.gateway(port), port, env):
            rows = asyncio.run(write_rows(f"http://127.0.0.1:{port}", moto.endpoint_url))
    finally:
        moto.stop()
    print_rows(rows)


async def _prepare(endpoint: str) -> None:
    async with aioboto3.Session().client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1"
    ) as client:
        await create_tables(client, TableNames(), ttl=False, streams=False)


def main() -> None:
    run_writes()
