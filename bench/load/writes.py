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
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import statistics
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp

from bench.load.topology import SECRET, Topology
from bench.load.workload import local_client
from gateway.auth.tokens import mint_token
from loaders.codec import from_wire, to_wire
from loaders.tables import Table, TableNames, create_tables
from schema.clock import SystemClock
from schema.principal import WRITER

WRITER_SUB = "load-writer"
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
USER = re.compile(r"lw-\d{5}")
#: Alerts are on for every write's user, below a balance the alerts' writes go under.
THRESHOLD = 50

SELECTIONS = {
    "recordPaydayPrediction": "loanId createdDate",
    "setIncomeVerification": "amountInCents lastUpdated",
    "recordSavingsSnapshot": "month totalAvailable updatedDate",
    "markInsightsRefresh": "label updatedDate",
    "recordLastPage": "paveRequestId page updatedDate",
    "recordIncomeDetectionRun": "runDate mlPredictionId",
    "recordFloatMeV2Capture": "filteredTransactions { pk sk } predictedPayday { pk sk }",
    "evaluateBalanceAlert": "decision alert { alertSent updatedDate }",
}
INPUT_TYPES = {
    "recordPaydayPrediction": "RecordPaydayPredictionInput",
    "setIncomeVerification": "SetIncomeVerificationInput",
    "recordSavingsSnapshot": "RecordSavingsSnapshotInput",
    "markInsightsRefresh": "MarkInsightsRefreshInput",
    "recordLastPage": "RecordLastPageInput",
    "recordIncomeDetectionRun": "RecordIncomeDetectionRunInput",
    "recordFloatMeV2Capture": "RecordFloatMeV2CaptureInput",
    "evaluateBalanceAlert": "EvaluateBalanceAlertInput",
}
KINDS = tuple(SELECTIONS)
#: The items one run of each kind leaves, by table (the alert's balance setting is seeded).
EFFECTS: dict[str, dict[Table, int]] = {
    "recordPaydayPrediction": {Table.PAVE: 1, Table.DATACAPTURE: 1},
    "setIncomeVerification": {Table.PAVE: 1},
    "recordSavingsSnapshot": {Table.PAVE: 1},
    "markInsightsRefresh": {Table.PAVE: 1},
    "recordLastPage": {Table.PAVE: 1},
    "recordIncomeDetectionRun": {Table.INCOME_DETECTION: 1},
    "recordFloatMeV2Capture": {Table.DATACAPTURE: 2},
    "evaluateBalanceAlert": {Table.PAVE: 1},
}
COUNTED = (Table.PAVE, Table.INCOME_DETECTION, Table.DATACAPTURE)


def document(kind: str) -> str:
    return (
        f"mutation Write($input: {INPUT_TYPES[kind]}!) "
        f"{{ {kind}(input: $input) {{ {SELECTIONS[kind]} }} }}"
    )


def user_input(kind: str, user: str, n: int) -> dict[str, Any]:
    """A write of `kind` for `user`; no input names a time, so each run stamps its own."""
    payroll: dict[str, Any] = {
        "transactionId": f"t-{n}",
        "name": "ACME",
        "amount": "1500.00",
        "date": "2026-11-27",
    }
    inputs: dict[str, dict[str, Any]] = {
        "recordPaydayPrediction": {
            "userId": user,
            "loanId": f"loan-{n}",
            "detectionUsed": "FLOATME_V2_PAYDAY_CALCULATION",
            "nextDate": "2026-12-11",
            "source": "ACME PAYROLL",
            "frequency": "biweekly",
            "v2": {"payday": "2026-12-11", "frequency": "biweekly"},
        },
        "setIncomeVerification": {
            "userId": user,
            "txnName": "ACME PAYROLL",
            "txnId": f"txn-{n}",
            "amountInCents": 100_000 + n,
            "payFrequency": "biweekly",
            "institutionId": "ins-3",
            "verificationStatus": "approved",
            "isValid": True,
            "notes": ["writes phase"],
            "verificationSource": "mx",
        },
        "recordSavingsSnapshot": {
            "userId": user,
            "accounts": [{"accountId": "acc-1", "amount": f"{n}.50", "subtype": "savings"}],
        },
        "markInsightsRefresh": {"userId": user},
        "recordLastPage": {"userId": user, "paveRequestId": f"req-{n}", "page": n % 97 + 1},
        "recordIncomeDetectionRun": {
            "userId": user,
            "methodResults": [{"method": "a", "transactions": [payroll]}],
            "mlPredictionId": f"pred-{n}",
        },
        "recordFloatMeV2Capture": {
            "userId": user,
            "filteredTransactions": [payroll],
            "predictedPayday": "2026-12-11",
            "frequency": "biweekly",
        },
        "evaluateBalanceAlert": {"userId": user, "availableBalance": "10", "currentBalance": "12"},
    }
    return inputs[kind]


@dataclass(frozen=True, slots=True)
class WriteJob:
    n: int
    kind: str
    user: str
    key: str
    body: dict[str, Any]


def write_jobs(count: int) -> list[WriteJob]:
    made = []
    for n in range(count):
        kind, user = KINDS[n % len(KINDS)], f"lw-{n:05d}"
        body = {"query": document(kind), "variables": {"input": user_input(kind, user, n)}}
        made.append(WriteJob(n, kind, user, f"lw-{uuid.uuid4().hex}", body))
    return made


@dataclass
class Outcome:
    job: WriteJob
    attempts: int = 0
    #: Each answer heard (a 200 without errors): its JSON, and whether it said it was replayed.
    answers: list[tuple[Any, bool]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    #: Seconds from the first send to the first answer heard (retries included).
    until_answered: float | None = None


@dataclass
class WritesResult:
    writes: int
    moto_transactions_per_second: float
    rate: float
    elapsed: float = 0.0
    outcomes: list[Outcome] = field(default_factory=list)
    #: Seconds of each attempt that was answered 200 without errors.
    latencies: list[float] = field(default_factory=list)
    restarts: list[tuple[str, float]] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)

    #: Requests moto's server answered during the phase (every replica's calls).
    moto_requests: int = 0
    #: Instants and item keys shown by answers and found in their own write's items.
    stamps_checked: int = 0

    @property
    def retried(self) -> int:
        return sum(1 for o in self.outcomes if o.failures)

    @property
    def replays(self) -> int:
        return sum(replayed for o in self.outcomes for _, replayed in o.answers)

    def percentile_ms(self, values: list[float], share: float) -> float:
        ordered = sorted(values)
        if not ordered:
            return float("nan")
        if share == 0.5:
            return statistics.median(ordered) * 1000
        return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000


async def seed_writes(endpoint: str, jobs: list[WriteJob]) -> None:
    """The six tables, and every alert user's threshold (their balance settings)."""
    async with local_client(endpoint) as client:
        names = TableNames()
        await create_tables(client, names, ttl=False, streams=False)
        for job in jobs:
            if job.kind == "evaluateBalanceAlert":
                item = {"user_id": job.user, "low_balance_alert": THRESHOLD}
                await client.put_item(TableName=names.balance_settings, Item=to_wire(item))


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


async def scan(client: Any, table: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    start: dict[str, Any] | None = None
    while True:
        page = await client.scan(
            TableName=table, ConsistentRead=True, **({"ExclusiveStartKey": start} if start else {})
        )
        items += [from_wire(item) for item in page.get("Items", [])]
        start = page.get("LastEvaluatedKey")
        if not start:
            return items


def _user_of(item: dict[str, Any], table: Table) -> str | None:
    for name in filter(None, table.key_names):
        found = USER.search(str(item.get(name) or ""))
        if found:
            return found.group(0)
    return None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)
    elif isinstance(value, str):
        yield value


async def judge_writes(endpoint: str, result: WritesResult) -> None:
    """Count each key's effects in the tables (read straight from moto) against its answers."""
    names = TableNames()
    async with local_client(endpoint) as client:
        items: dict[str, dict[Table, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
        for table in COUNTED:
            for item in await scan(client, names.name(table)):
                user = _user_of(item, table)
                if user is not None:
                    items[user][table].append(item)
        records: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in await scan(client, names.idempotency):
            if record.get("sub") == WRITER_SUB:
                records[str(record["idempotency_key"])].append(record)
    for outcome in result.outcomes:
        judge_one(outcome, items[outcome.job.user], records.get(outcome.job.key, []), result)


def judge_one(
    outcome: Outcome,
    items: dict[Table, list[dict[str, Any]]],
    records: list[dict[str, Any]],
    result: WritesResult,
) -> None:
    job = outcome.job
    name = f"{job.kind} {job.user}"
    counts = {table: len(items.get(table, [])) for table in COUNTED}
    wanted = {table: EFFECTS[job.kind].get(table, 0) for table in COUNTED}
    if len(records) > 1 or any(counts[t] > wanted[t] for t in COUNTED):
        result.duplicated.append(f"{name}: {len(records)} records, items {counts}")
    if not outcome.answers:
        result.unanswered.append(f"{name}: {outcome.failures[-3:]} ({len(records)} records)")
        return
    first = outcome.answers[0][0]
    if any(answer != first for answer, _ in outcome.answers[1:]):
        result.differing.append(f"{name}: {[a for a, _ in outcome.answers]}")
    if not records or any(counts[t] < wanted[t] for t in COUNTED):
        result.lost.append(f"{name}: answered, {len(records)} records, items {counts}")
        return
    recorded = json.loads(bytes(records[0]["answer"]))
    if recorded != first:
        result.differing.append(f"{name}: recorded {recorded}, answered {first}")
    # The items are the ones the answer describes: its instants and keys are theirs (a
    # second run would have written its own).
    stored = {text for table in COUNTED for item in items.get(table, []) for text in _strings(item)}
    shown = [text for text in _strings(first["data"]) if _is_stamp(text)]
    missing = [text for text in shown if text not in stored]
    result.stamps_checked += len(shown) - len(missing)
    if missing:
        result.duplicated.append(f"{name}: answered {missing}, not in its items")
    if job.kind == "evaluateBalanceAlert" and first["data"][job.kind]["decision"] != "SENT":
        result.duplicated.append(f"{name}: answered {first['data'][job.kind]['decision']}")


def _is_stamp(text: str) -> bool:
    """An instant (…T…Z) or an item key (USER#…): what a run of its own would change."""
    return bool(re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", text)) or "#" in text


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
