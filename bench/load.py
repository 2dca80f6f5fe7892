"""Load test: the gateway under uvicorn on 127.0.0.1 against the embedded DynamoDB (moto's
server), a bounded mixed workload of queries and mutations, then the same again with
DynamoDB throttling injected by the test suite's fault proxy.

    .venv/bin/python bench/load.py [--requests 20000] [--concurrency 50] [--throttle 0.2]

Every answer is checked, not just counted: a query must equal its fault-free answer (read
once before the run), or, only when DynamoDB failed, differ from it solely by nulls at or
above the paths of its errors, every one coded DYNAMODB_UNAVAILABLE. A mutation must answer
what it wrote, and a sample of the writes is read back at the end. Prints, per phase:
requests, wrong answers, errors by code, p50/p99 latency and the gateway's RSS before/after.
Bounded: a request count, a time limit per phase, every server on a free loopback port and
stopped on the way out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.faults, the suite's fault proxy

from gateway.auth.tokens import mint_token  # noqa: E402
from gateway.cli.demo import ADA, BOB, CY  # noqa: E402
from schema.clock import SystemClock  # noqa: E402
from schema.principal import DASHBOARD, WRITER  # noqa: E402
from tests.faults import FaultProxy, Throttle, fault_proxy  # noqa: E402

BIN = Path(sys.executable).parent
SECRET = "bench-load-secret-0123456789abcdef0123"
READ_USERS = (ADA, BOB, CY)
UNAVAILABLE = "DYNAMODB_UNAVAILABLE"

POINTS = """query($id: ID!) { user(id: $id) { id payday { predictionDate nextDate loanId }
  alert { alertSent balanceSetting cooldownUntil } income { amount source } lowBalanceAlert } }"""
EVERY_FIELD = """query($id: ID!) { user(id: $id) {
  id payday { predictionDate } incomeVerification { txnId amountInCents }
  savingsMonths { month totalAvailable } alert { alertSent }
  recurringExpenses { merchantName dueDate } rituals { merchantName }
  cashAdvanceScores { score } incomeDetectionRuns { runDate } income { amount }
  latestMine { minedAt } paveLabel { label } lastPages { page } lowBalanceAlert } }"""
WIDE = """query($ids: [ID!]!) { users(ids: $ids) {
  id savingsMonths(months: 6) { month totalAvailable } cashAdvanceScores(limit: 5) { score } } }"""
LAST_PAGE = """mutation($input: RecordLastPageInput!) { recordLastPage(input: $input) {
  paveRequestId page } }"""
MARK = """mutation($input: MarkInsightsRefreshInput!) { markInsightsRefresh(input: $input) {
  label updatedDate } }"""
READ_BACK = "query($id: ID!) { user(id: $id) { lastPages { paveRequestId page } } }"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def process(
    args: list[str], env: dict[str, str], ready_url: str, log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    # Its output goes to a file: a pipe nobody reads would fill and stall the server.
    with log.open("wb") as output:
        proc = subprocess.Popen(args, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_until_up(proc, ready_url, log)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_until_up(
    proc: subprocess.Popen[bytes], url: str, log: Path, seconds: float = 30.0
) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except urllib.error.HTTPError:
            return  # it answers (moto's root path is a 404)
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def gateway_env(endpoint: str) -> dict[str, str]:
    return {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint,
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_MAX_QUERY_COST": "100000",
        # moto is one Python process: past a dozen calls at once, each waits on the others
        # until it overruns the read timeout. The gateway's in-flight cap holds the rest in
        # its own queue (counted against each request's deadline) instead.
        "INSIGHT_DYNAMODB_MAX_POOL_CONNECTIONS": os.environ.get("BENCH_POOL", "16"),
    }


@contextmanager
def gateway(endpoint: str, log: Path) -> Iterator[tuple[str, int]]:
    port = free_port()
    args = [
        str(BIN / "uvicorn"),
        "--factory",
        "gateway.app:create_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    url = f"http://127.0.0.1:{port}"
    with process(args, gateway_env(endpoint), url + "/healthz", log) as proc:
        yield url, proc.pid


# --- the workload ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Job:
    kind: str
    query: str
    variables: dict[str, Any]


def job(index: int, rng: random.Random) -> Job:
    roll = rng.random()
    user = READ_USERS[index % len(READ_USERS)]
    # Mostly what a client sends most (a few fields of a user); moto answers the whole-
    # partition Query of `every_field` some 8 times slower than a BatchGetItem.
    if roll < 0.45:
        return Job("points", POINTS, {"id": user})
    if roll < 0.55:
        return Job("every_field", EVERY_FIELD, {"id": user})
    if roll < 0.70:
        return Job("wide", WIDE, {"ids": [ADA, BOB, CY, ADA]})
    if roll < 0.90:
        # A user of its own per write: its answer is exactly its input.
        payload = {
            "userId": f"bench-w-{index}",
            "paveRequestId": f"req-{index}",
            "page": index % 97 + 1,
        }
        return Job("last_page", LAST_PAGE, {"input": payload})
    return Job("mark", MARK, {"input": {"userId": f"bench-m-{index}"}})


def read_key(found: Job) -> str:
    return json.dumps([found.query, found.variables], sort_keys=True)


def differences(
    want: Any, got: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """The outermost paths where `got` differs from `want`, with got's value there."""
    if isinstance(want, dict) and isinstance(got, dict) and want.keys() == got.keys():
        for name in want:
            yield from differences(want[name], got[name], (*path, name))
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for index, (w, g) in enumerate(zip(want, got, strict=True)):
            yield from differences(w, g, (*path, index))
    elif want != got:
        yield path, got


def verdict(found: Job, body: dict[str, Any], baselines: dict[str, Any]) -> str | None:
    """None for a right answer, else why it is wrong."""
    errors = body.get("errors") or []
    codes = {error.get("extensions", {}).get("code") for error in errors}
    if errors and codes != {UNAVAILABLE}:
        return f"error codes {sorted(map(str, codes))}"
    data = body.get("data")
    if found.kind in ("last_page", "mark"):
        if errors:
            return None if data is None or next(iter(data.values())) is None else "data with errors"
        if found.kind == "last_page":
            expected = {k: found.variables["input"][k] for k in ("paveRequestId", "page")}
            return None if data == {"recordLastPage": expected} else f"wrote {data}"
        mark = (data or {}).get("markInsightsRefresh") or {}
        return (
            None if mark.get("label") == "REFRESH_INSIGHTS" and mark.get("updatedDate") else "mark"
        )
    want = baselines[read_key(found)]
    error_paths = [tuple(error.get("path") or ()) for error in errors]
    for where, value in differences({"data": want}, {"data": data}):
        covered = value is None and any(p[: len(where) - 1] == where[1:] for p in error_paths)
        if not covered:
            return f"differs at {where[1:]} without an error there"
    return None


@dataclass
class Phase:
    name: str
    latencies: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    codes: Counter[str] = field(default_factory=Counter)
    http: Counter[int] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    elapsed: float = 0.0
    rss_before: float = 0.0
    rss_after: float = 0.0

    def report(self) -> str:
        ordered = sorted(self.latencies)
        p50 = statistics.median(ordered) * 1000 if ordered else float("nan")
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000 if ordered else 0
        errors = sum(self.codes.values())
        return "\n".join(
            [
                f"== {self.name}",
                f"requests {len(self.latencies)} in {self.elapsed:.1f} s "
                f"({len(self.latencies) / max(self.elapsed, 1e-9):.0f}/s); mix {dict(self.kinds)}",
                f"wrong answers {len(self.wrong)}  HTTP {dict(self.http)}",
                f"errors {errors} by code {dict(self.codes)}",
                f"latency p50 {p50:.1f} ms  p99 {p99:.1f} ms",
                f"gateway RSS before {self.rss_before:.1f} MiB  after {self.rss_after:.1f} MiB  "
                f"(growth {self.rss_after - self.rss_before:+.1f} MiB)",
                *(f"  wrong: {reason}" for reason in self.wrong[:10]),
            ]
        )


async def post(session: aiohttp.ClientSession, url: str, found: Job) -> tuple[int, dict[str, Any]]:
    payload = {"query": found.query, "variables": found.variables}
    async with session.post(url + "/graphql", json=payload) as response:
        return response.status, await response.json()


async def baselines_of(session: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    """Every read the workload sends, answered once with no fault: its right answer."""
    rng = random.Random(1)
    wanted: dict[str, Job] = {}
    for index in range(300):
        candidate = job(index, rng)
        if candidate.kind in ("points", "every_field", "wide"):
            wanted.setdefault(read_key(candidate), candidate)
    answers = {}
    for key, found in wanted.items():
        status, body = await post(session, url, found)
        if status != 200 or body.get("errors"):
            raise RuntimeError(f"baseline {found.kind} failed: {status} {body}")
        answers[key] = body["data"]
    return answers


async def run_phase(
    phase: Phase,
    url: str,
    pid: int,
    baselines: dict[str, Any],
    token: str,
    *,
    requests: int,
    concurrency: int,
    time_limit: float,
) -> list[Job]:
    headers = {"Authorization": f"Bearer {token}"}
    connector = aiohttp.TCPConnector(limit=concurrency)
    written: list[Job] = []
    async with aiohttp.ClientSession(headers=headers, connector=connector) as session:
        # Warm-up (not measured): the first requests pay for imports and connection set-up.
        for index in range(200):
            await post(session, url, job(index, random.Random(index)))
        phase.rss_before = rss_mib(pid)
        rng = random.Random(42)
        jobs = [job(index, rng) for index in range(requests)]
        next_job = iter(jobs)
        started = time.monotonic()
        stop_at = started + time_limit

        async def worker() -> None:
            for found in next_job:
                if time.monotonic() > stop_at:
                    return
                sent = time.perf_counter()
                status, body = await post(session, url, found)
                phase.latencies.append(time.perf_counter() - sent)
                phase.http[status] += 1
                phase.kinds[found.kind] += 1
                for error in body.get("errors") or []:
                    phase.codes[str(error.get("extensions", {}).get("code"))] += 1
                reason = verdict(found, body, baselines)
                if reason is not None:
                    phase.wrong.append(f"{found.kind}: {reason}")
                elif found.kind == "last_page" and not body.get("errors"):
                    written.append(found)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        phase.elapsed = time.monotonic() - started
        phase.rss_after = rss_mib(pid)
    return written


async def read_back(url: str, token: str, written: list[Job], sample: int) -> list[str]:
    """Read a sample of the recorded last pages back: what was answered was stored."""
    wrong = []
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as session:
        for found in random.Random(7).sample(written, min(sample, len(written))):
            given = found.variables["input"]
            read = Job("read_back", READ_BACK, {"id": given["userId"]})
            _, body = await post(session, url, read)
            stored = (body.get("data") or {}).get("user", {}).get("lastPages")
            if stored != [{"paveRequestId": given["paveRequestId"], "page": given["page"]}]:
                wrong.append(f"read back {given['userId']}: {stored}")
    return wrong


async def main_async(args: argparse.Namespace) -> int:
    moto_port = free_port()
    moto_url = f"http://127.0.0.1:{moto_port}"
    env = gateway_env(moto_url)
    moto_args = [str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(moto_port)]
    token = mint_token(SECRET, "bench", [DASHBOARD, WRITER], timedelta(hours=2), SystemClock())
    failed = False
    logs = Path(args.logs)
    await asyncio.to_thread(logs.mkdir, parents=True, exist_ok=True)
    print(f"server logs in {logs}/", flush=True)
    with process(moto_args, env, moto_url + "/", logs / "moto.log"):
        await asyncio.to_thread(prepare_tables, env)

        phases: list[Phase] = []
        with gateway(moto_url, logs / "gateway-plain.log") as (url, pid):
            async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as s:
                baselines = await baselines_of(s, url)
            if args.phase == "throttled":
                print("== no faults: skipped (--phase throttled)", flush=True)
            else:
                plain = Phase("no faults")
                written = await run_phase(
                    plain,
                    url,
                    pid,
                    baselines,
                    token,
                    requests=args.requests,
                    concurrency=args.concurrency,
                    time_limit=args.time_limit,
                )
                plain.wrong += await read_back(url, token, written, args.read_back)
                phases.append(plain)
                print(plain.report(), flush=True)
                failed |= bool(plain.wrong) or sum(plain.codes.values()) > 0

        if args.phase == "plain":
            print("RESULT:", "FAIL" if failed else "OK")
            return 1 if failed else 0
        async with fault_proxy(moto_url) as proxy:
            inject_throttling(proxy, args.throttle, random.Random(3))
            with gateway(proxy.endpoint_url, logs / "gateway-throttled.log") as (url, pid):
                throttled = Phase(f"throttling {args.throttle:.0%} of DynamoDB calls")
                written = await run_phase(
                    throttled,
                    url,
                    pid,
                    baselines,
                    token,
                    requests=args.requests,
                    concurrency=args.concurrency,
                    time_limit=args.time_limit,
                )
                injected = dict(proxy.injected)
                proxy.reset()  # read back through a healthy DynamoDB
                throttled.wrong += await read_back(url, token, written, args.read_back)
                print(throttled.report(), flush=True)
                print(f"throttled attempts injected: {injected}", flush=True)
                uncoded = {c for c in throttled.codes if c != UNAVAILABLE}
                failed |= bool(throttled.wrong) or bool(uncoded)
    print("RESULT:", "FAIL" if failed else "OK")
    return 1 if failed else 0


def prepare_tables(env: dict[str, str]) -> None:
    cli = str(BIN / "insight-gateway")
    subprocess.run([cli, "create-tables"], env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([cli, "seed-demo"], env=env, check=True, stdout=subprocess.DEVNULL)


def inject_throttling(proxy: FaultProxy, rate: float, rng: random.Random) -> None:
    for operation in ("BatchGetItem", "Query", "PutItem", "UpdateItem", "GetItem"):
        proxy.inject(operation, Throttle(), times=10**9, when=lambda _body: rng.random() < rate)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--phase", choices=["both", "plain", "throttled"], default="both")
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--throttle", type=float, default=0.1, help="share of calls throttled")
    parser.add_argument("--time-limit", type=float, default=900.0, help="seconds per phase")
    parser.add_argument("--read-back", type=int, default=200, help="writes read back per phase")
    parser.add_argument("--logs", default=str(ROOT / "test-artifacts" / "load"), help="server logs")
    args = parser.parse_args()
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
