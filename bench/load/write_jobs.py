"""The writes phase's writes (bench/load/writes.py): every mutation kind in turn, each to a
user of its own with a key of its own, and the items one run of each kind leaves."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from bench.load.workload import local_client
from loaders.codec import to_wire
from loaders.tables import Table, TableNames, create_tables

WRITER_SUB = "load-writer"
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


async def seed_writes(endpoint: str, jobs: list[WriteJob]) -> None:
    """The six tables, and every alert user's threshold (their balance settings)."""
    async with local_client(endpoint) as client:
        names = TableNames()
        await create_tables(client, names, ttl=False, streams=False)
        for job in jobs:
            if job.kind == "evaluateBalanceAlert":
                item = {"user_id": job.user, "low_balance_alert": THRESHOLD}
                await client.put_item(TableName=names.balance_settings, Item=to_wire(item))
