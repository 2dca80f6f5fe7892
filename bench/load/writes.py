"""The writes phase of `make load` (issue 30): every mutation kind, each request with its own
Idempotency-Key, through nginx (which retries non-idempotent requests on the other replica)
to two replicas over moto's server (dynalite has no TransactWriteItems), with a rolling
restart of both replicas, one after the other, in the middle.

Each client retries every failed or unanswered request (a transport error, a timeout, a
status other than 200, an answer with errors) with the same key and body, at most
MAX_ATTEMPTS times; every RESEND_EVERY-th write is sent once more after its answer, as a
client that did not trust it would. Each write is to a user of its own, so its effects can
be counted in the tables afterwards, read straight from moto:

- duplicated: a key with more than its kind's items, more than one record, or an answer
  other than its first (a retry that ran again instead of replaying);
- lost: a key answered 200 whose record or items are missing, or whose items are not the
  ones its answer describes.

The rate: moto's own rate of TransactWriteItems is probed first (a keyed mutation costs
moto a GetItem and a TransactWriteItems, some writers a read or a lock more, and moto copies
each table a transaction touches), and the phase runs at a fraction of it.

Its writes are bench/load/write_jobs.py's, judged by bench/load/write_judge.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp

from bench.load.topology import SECRET, Topology
from bench.load.workload import local_client
from bench.load.write_jobs import KINDS, WRITER_SUB, WriteJob
from bench.load.write_jobs import seed_writes as seed_writes
from bench.load.write_jobs import write_jobs as write_jobs
from bench.load.write_judge import Outcome, WritesResult, judge_writes
from gateway.auth.tokens import mint_token
from loaders.codec import to_wire
from loaders.tables import TableNames, create_tables
from schema.clock import SystemClock
from schema.principal import WRITER

#: The replicas' settings: every mutation must carry a key (as the production overlay has
#: it), and a writer's budget the phase cannot exhaust.
WRITES_SETTINGS = {
    "INSIGHT_IDEMPOTENCY": "required",
    "INSIGHT_RATE_LIMIT_WRITER": "999999999/second",
}
MAX_ATTEMPTS = 8
#: A client's patience for one attempt: past it, the attempt counts as unanswered and is sent
#: again with its key, while the first may still be running (two copies at once).
ATTEMPT_TIMEOUT = 2.0
BACKOFF_SECONDS = 0.25
RESEND_EVERY = 5
PROBE_TRANSACTIONS = 200
#: The share of moto's probed rate the phase sends, and a cap: the probe's tables are
#: empty, and moto copies each table a transaction touches, so its rate falls as the phase's
#: tables grow (a keyed mutation also costs moto a GetItem, some writers a read or a lock).
RATE_SHARE = 0.1
MAX_RATE = 4.0


def probe_tables() -> TableNames:
    """The probe's own tables: moto copies every table a transaction touches, so the phase's
    tables are left as small as its writes make them."""
    names = TableNames()
    return TableNames(
        **{f.name: "probe-" + getattr(names, f.name) for f in dataclasses.fields(names)}
    )


async def moto_transaction_rate(endpoint: str, concurrency: int = 8) -> float:
    """TransactWriteItems a second moto sustains: two items and a record-like item each,
    on tables of the probe's own."""
    names = probe_tables()
    async with local_client(endpoint) as client:
        await create_tables(client, names, ttl=False, streams=False)
        pending = iter(range(PROBE_TRANSACTIONS))

        async def worker() -> None:
            for n in pending:
                items: list[tuple[str, dict[str, Any]]] = [
                    (names.pave, {"PK": f"PROBE#{n}", "SK": "PROBE"}),
                    (names.datacapture, {"PK": f"PROBE#{n}", "SK": "PROBE"}),
                    (names.idempotency, {"key": f"probe-{n}", "answer": b"{}"}),
                ]
                await client.transact_write_items(
                    TransactItems=[
                        {"Put": {"TableName": table, "Item": to_wire(item)}}
                        for table, item in items
                    ]
                )

        started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return PROBE_TRANSACTIONS / (time.monotonic() - started)


async def send_write(
    session: aiohttp.ClientSession, url: str, token: str, outcome: Outcome, result: WritesResult
) -> None:
    """The write until it is answered (at most MAX_ATTEMPTS), then, for every
    RESEND_EVERY-th write, once more."""
    job = outcome.job
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": job.key}
    timeout = aiohttp.ClientTimeout(total=ATTEMPT_TIMEOUT)
    started = time.monotonic()
    wanted = 2 if job.n % RESEND_EVERY == 0 else 1
    while len(outcome.answers) < wanted and outcome.attempts < MAX_ATTEMPTS + wanted - 1:
        outcome.attempts += 1
        sent = time.monotonic()
        try:
            async with session.post(
                url + "/graphql", json=job.body, headers=headers, timeout=timeout
            ) as answer:
                status, text = answer.status, await answer.text()
                replayed = answer.headers.get("Idempotency-Replayed") == "true"
        except (aiohttp.ClientError, TimeoutError) as error:
            why = type(error).__name__
            outcome.failures.append(why)
            result.failures[why] += 1
            await asyncio.sleep(BACKOFF_SECONDS * outcome.attempts)
            continue
        body: dict[str, Any] = json.loads(text) if text.startswith("{") else {"text": text[:200]}
        if status != 200 or body.get("errors"):
            codes = [
                str((error.get("extensions") or {}).get("code"))
                for error in body.get("errors") or []
            ]
            shown = ",".join(codes) or _title(text).removeprefix(f"{status} ")
            why = f"HTTP {status} {shown}"
            outcome.failures.append(why)
            result.failures[why] += 1
            await asyncio.sleep(BACKOFF_SECONDS * outcome.attempts)
            continue
        if _locked(job, body):
            # Another copy of this write holds the user's alert lock: not recorded, so the
            # client tries again later (docs/idempotency.md).
            outcome.failures.append("LOCKED")
            result.failures["LOCKED"] += 1
            await asyncio.sleep(BACKOFF_SECONDS * outcome.attempts)
            continue
        result.latencies.append(time.monotonic() - sent)
        if outcome.until_answered is None:
            outcome.until_answered = time.monotonic() - started
        outcome.answers.append((body, replayed))


def _title(text: str) -> str:
    """An HTML error page's title (nginx's 502), or the text's start, on one line."""
    found = re.search(r"<title>(.*?)</title>", text)
    return found.group(1) if found else " ".join(text.split())[:60]


def _locked(job: WriteJob, body: dict[str, Any]) -> bool:
    if job.kind != "evaluateBalanceAlert":
        return False
    return bool(body["data"][job.kind]["decision"] == "LOCKED")


def moto_requests(log: Path | None) -> int:
    """The requests moto's server has answered so far (its access log's lines)."""
    if log is None or not log.exists():
        return 0
    return sum(1 for line in log.read_text(errors="replace").splitlines() if '"POST / ' in line)


async def run_writes_phase(
    topo: Topology, jobs: list[WriteJob], rate: float | None, moto_log: Path | None = None
) -> WritesResult:
    endpoint = topo.backend.endpoint_url
    measured = await moto_transaction_rate(endpoint)
    chosen = rate or min(MAX_RATE, measured * RATE_SHARE)
    result = WritesResult(len(jobs), measured, chosen)
    token = mint_token(SECRET, WRITER_SUB, [WRITER], timedelta(hours=3), SystemClock())
    connector = aiohttp.TCPConnector(limit=256)
    served = moto_requests(moto_log)
    async with aiohttp.ClientSession(connector=connector) as session:
        started = time.monotonic()
        pending: list[asyncio.Task[None]] = []
        restarter: asyncio.Task[None] | None = None
        for index, job in enumerate(jobs):
            await asyncio.sleep(max(0.0, started + index / chosen - time.monotonic()))
            outcome = Outcome(job)
            result.outcomes.append(outcome)
            pending.append(
                asyncio.create_task(send_write(session, topo.url, token, outcome, result))
            )
            if index == len(jobs) // 3:
                restarter = asyncio.create_task(rolling_restart(topo, result))
        await asyncio.gather(*pending)
        result.elapsed = time.monotonic() - started
        result.moto_requests = moto_requests(moto_log) - served
        if restarter is not None:
            await restarter
    await judge_writes(endpoint, result)
    return result


async def rolling_restart(topo: Topology, result: WritesResult) -> None:
    """Each replica in turn: SIGTERM, start again, ready; the next only then."""
    for replica in topo.replicas:
        away = await asyncio.to_thread(replica.restart)
        result.restarts.append((replica.name, away))


def report(result: WritesResult) -> str:
    until = [o.until_answered for o in result.outcomes if o.until_answered is not None]
    by_kind = Counter(o.job.kind for o in result.outcomes if o.answers)
    failures = ", ".join(f"{why} {n}" for why, n in result.failures.most_common()) or "none"
    lines = [
        "### Writes: every mutation keyed, retried with its key, two rolling restarts",
        "",
        f"- moto's server sustains {result.moto_transactions_per_second:.0f} "
        f"TransactWriteItems/s (3 items, 8 at once); the phase sends {result.rate:.1f} "
        f"writes/s ({RATE_SHARE:.0%} of it, at most {MAX_RATE:.0f})",
        f"- {result.writes} writes ({len(KINDS)} kinds: "
        + ", ".join(f"{kind} {n}" for kind, n in by_kind.items())
        + f") in {result.elapsed:.1f} s: "
        f"{sum(1 for o in result.outcomes if o.answers) / max(result.elapsed, 1e-9):.1f}/s "
        "answered",
        f"- moto served {result.moto_requests / max(result.elapsed, 1e-9):.1f} DynamoDB "
        f"requests/s during the phase ({result.moto_requests} in all, one at a time: "
        "bench/load/serial_moto.py)",
        f"- each answered attempt: p50 {result.percentile_ms(result.latencies, 0.5):.1f} ms, "
        f"p99 {result.percentile_ms(result.latencies, 0.99):.1f} ms; from the first send to "
        f"the first answer (retries included): p50 {result.percentile_ms(until, 0.5):.1f} ms, "
        f"p99 {result.percentile_ms(until, 0.99):.1f} ms",
        f"- retried: {result.retried} writes; failed attempts: {failures}",
        f"- replays (Idempotency-Replayed: true): {result.replays}, of which "
        f"{sum(1 for o in result.outcomes if o.job.n % RESEND_EVERY == 0)} writes resent "
        "once after their answer",
        f"- answers' instants and item keys found in their own write's items: "
        f"{result.stamps_checked}",
        f"- duplicated {len(result.duplicated)}, lost {len(result.lost)}, unanswered "
        f"{len(result.unanswered)}, retried answers unlike their first {len(result.differing)}",
    ]
    for name, away in result.restarts:
        lines.append(f"- rolling restart: {name} SIGTERMed and ready again in {away:.1f} s")
    for kind, found in (
        ("duplicated", result.duplicated),
        ("lost", result.lost),
        ("unanswered", result.unanswered),
        ("differing", result.differing),
    ):
        lines += [f"  - {kind}: {reason}" for reason in found[:5]]
    return "\n".join(lines)


def writes_problems(result: WritesResult) -> list[str]:
    problems = []
    if result.duplicated or result.lost or result.differing or result.unanswered:
        problems.append(
            f"writes: {len(result.duplicated)} duplicated, {len(result.lost)} lost, "
            f"{len(result.differing)} answers unlike their first, "
            f"{len(result.unanswered)} unanswered"
        )
    return problems
