"""The writes phase's outcomes and their judge: each key's effects counted in the tables,
read straight from moto, against the answers its client heard (bench/load/writes.py)."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bench.load.percentiles import percentile_ms
from bench.load.workload import local_client
from bench.load.write_jobs import COUNTED, EFFECTS, USER, WRITER_SUB, WriteJob
from loaders.codec import from_wire
from loaders.tables import Table, TableNames


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
        return percentile_ms(values, share)


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
