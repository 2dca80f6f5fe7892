"""What per-client protection costs: the CPU its checks add to a request, and a refused
request's whole cost.

    .venv/bin/python -m bench.protection [--iterations 2000]

Prints medians of CPU time (this process's, so waiting on Redis is not counted; its wall
time is printed beside it) for:
- the checks a served request goes through: the trusted-documents look-up (enforce, a
  listed text), the budget charge (the cost limit's memoised measure, then `limits`' moving
  window: hit and window stats) with `memory://` and with Redis (Debian's redis-server on a
  loopback port), and the answer's headers;
- a whole request through the ASGI app that is refused: not in the trusted documents, and
  over budget; with the DynamoDB calls it made (the app's DynamoDB endpoint is a closed
  port: any call would fail and be counted).
Bounded: a fixed number of iterations, every server on loopback and stopped on the way out.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import httpx
from graphql import parse

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.operations.gate import OperationGate
from gateway.operations.operation import Operation
from gateway.operations.response_headers import rate_limit_headers
from gateway.protection.budget_charge import BudgetCharge
from gateway.protection.rate_limit import Budgets, start_charges
from gateway.settings import Settings
from schema.clock import SystemClock
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.prepared import PreparedOperations
from schema.principal import Principal
from schema.root import build_schema
from support.metrics_text import total
from support.redis_server import RedisServer

SECRET = "bench-protection-secret-0123456789abcdef"
LISTED = "query Viewer { viewer { id payday { nextDate } alert { alertSent } } }"
UNLISTED = "query Other { viewer { id lowBalanceAlert } }"


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


async def timed(call: Callable[[], Awaitable[object]], iterations: int) -> tuple[float, float]:
    """Median CPU and wall microseconds of `call`."""
    cpu, wall = [], []
    for _ in range(iterations):
        c0, w0 = time.process_time(), time.perf_counter()
        await call()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return median_us(cpu), median_us(wall)


def manifest_file(folder: Path) -> str:
    body_id = hashlib.sha256(LISTED.encode()).hexdigest()
    operations = [{"id": body_id, "name": "Viewer", "type": "query", "body": LISTED}]
    path = folder / "manifest.json"
    manifest = {"format": "apollo-persisted-query-manifest", "version": 1}
    path.write_text(json.dumps({**manifest, "operations": operations}))
    return str(path)


async def checks(settings: Settings, iterations: int) -> tuple[float, float]:
    """CPU and wall microseconds of one served request's protection checks."""
    schema = build_schema()
    gate = OperationGate.from_settings(settings, schema._schema)
    budgets = Budgets.from_settings(settings)
    charge = BudgetCharge(budgets, PreparedOperations(GATEWAY_COST_POLICY))
    document = parse(LISTED)
    principal = Principal("bench-user")
    operation = Operation(LISTED, None, None, None)

    class _Context:  # what BudgetCharge reads of strawberry's execution context
        schema = build_schema()
        query = LISTED
        operation_name = None
        variables = None
        graphql_document = document
        context = type("C", (), {"principal": principal})()
        result = None

    charge.execution_context = _Context()  # type: ignore[assignment]

    async def one() -> None:
        gate.query_of(operation, principal)
        charges = start_charges()
        hooks = charge.on_execute()
        await anext(hooks)  # the charge itself; the operation would run here
        rate_limit_headers(charges)

    await timed(one, 50)  # warm the memo, the connection and the caches
    return await timed(one, iterations)


async def refused(settings: Settings, iterations: int) -> dict[str, tuple[float, float, float]]:
    """CPU and wall microseconds of a whole refused request, and the DynamoDB calls made."""
    app = create_app(settings, clock=SystemClock())
    token = mint_token(SECRET, "bench-user", [], timedelta(hours=1), SystemClock())
    headers = {"Authorization": f"Bearer {token}"}
    found: dict[str, tuple[float, float, float]] = {}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://g") as client,
    ):
        # (body, headers, status): the first, refused before any check of this issue, is
        # the scale: the in-process client and the ASGI stack cost the same in every row.
        cases = {
            "no token (401), for scale": ({"query": LISTED}, {}, 401),
            "not in the trusted documents": ({"query": UNLISTED}, headers, 200),
            "over budget (429)": ({"query": LISTED}, headers, 429),
        }
        for name, (body, sent, status) in cases.items():

            async def one(
                body: dict[str, str] = body, sent: dict[str, str] = sent, status: int = status
            ) -> None:
                answer = await client.post("/graphql", json=body, headers=sent)
                assert answer.status_code == status, answer.text

            cpu, wall = await timed(one, iterations)
            metrics = (await client.get("/metrics")).text
            calls = total(metrics, "gateway_dynamodb_calls_total")
            found[name] = (cpu, wall, calls)
    return found


async def run(iterations: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Settings(
            dynamodb_endpoint_url="http://127.0.0.1:9",  # closed: a call would fail, counted
            auth_hs256_secret=SECRET,
            trusted_documents="enforce",
            trusted_documents_file=manifest_file(Path(folder)),
            # Large enough that the checks' runs are never refused; 1/hour for the 429 case.
            rate_limit_user="1000000000/hour",
        )
        redis = RedisServer()
        redis.start()
        try:
            with_redis = dataclasses.replace(base, rate_limit_storage_uri=redis.uri)
            memory_cpu, memory_wall = await checks(base, iterations)
            redis_cpu, redis_wall = await checks(with_redis, iterations)
            refusals = await refused(
                dataclasses.replace(base, rate_limit_user="1/hour"), iterations
            )
        finally:
            redis.stop()
    print(f"protection checks per served request, median of {iterations}:")
    print(f"  memory://  CPU {memory_cpu:7.1f} us   wall {memory_wall:7.1f} us")
    print(f"  redis://   CPU {redis_cpu:7.1f} us   wall {redis_wall:7.1f} us (two Redis calls)")
    print(f"a refused request, whole (ASGI app and its in-process client), median of {iterations}:")
    for name, (cpu, wall, calls) in refusals.items():
        print(f"  {name:30} CPU {cpu:7.1f} us   wall {wall:7.1f} us   DynamoDB calls {calls:g}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    args = parser.parse_args(argv)
    if not 1 <= args.iterations <= 100_000:
        sys.exit("--iterations is 1 to 100000")
    asyncio.run(run(args.iterations))


if __name__ == "__main__":
    main()
