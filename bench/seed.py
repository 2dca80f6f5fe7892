"""Realistic users for the benchmark: tens of recurring rows over two mines, a year of
savings months, a month of daily scores, a week of income detection runs."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from decimal import Decimal

from gateway.settings import Settings
from loaders import ttl
from loaders.codec import Item, months_back
from loaders.dynamodb import Dynamo
from loaders.rows.alert import AlertRow
from loaders.rows.balance import AccountBalance, BalanceRow
from loaders.rows.feeder import REFRESH_INSIGHTS, LastPageRow, PaveLabelRow
from loaders.rows.income import IncomeRow
from loaders.rows.income_detection import DetectedTransaction, IncomeDetectionRunRow, MethodResult
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.mine import RECURRING, RITUAL, ExpenseRow, MineRow, expense_to_item
from loaders.rows.payday import AlgorithmPrediction, PaydayRow
from loaders.rows.scores import ScoreRow
from loaders.tables import Table

RECURRING_PER_MINE = 24
RITUALS_PER_MINE = 8
SCORES = 30
DETECTION_RUNS = 7

CATEGORIES = ("utilities", "entertainment", "transport", "food", None)


def user_items(user_id: str, now: datetime, settings: Settings) -> list[tuple[Table, Item]]:
    now = now.replace(microsecond=0)
    today = now.date()
    pave: list[Item] = []
    fm = AlgorithmPrediction(
        today + timedelta(days=9),
        "biweekly",
        today + timedelta(days=9),
        today + timedelta(days=10),
        today + timedelta(days=12),
    )
    pave.append(
        PaydayRow(
            user_id,
            today,
            "FLOATME_V2_PAYDAY_CALCULATION",
            fm.payday,
            "ACME PAYROLL",
            "biweekly",
            f"loan-{user_id}",
            now - timedelta(hours=1),
            fm,
            fm,
            fm,
            ttl.payday(now - timedelta(hours=1)),
        ).to_item()
    )
    pave.append(
        IncomeVerificationRow(
            user_id,
            "ACME PAYROLL",
            f"txn-{user_id}",
            184250,
            "biweekly",
            "ins_109508",
            "approved",
            True,
            now - timedelta(days=3),
            ("matched two consecutive deposits", "employer verified"),
            "ollie",
        ).to_item()
    )
    for index, month in enumerate(months_back(today, 12)):
        updated = now - timedelta(days=30 * index)
        accounts = tuple(
            AccountBalance(f"acc-{kind}", Decimal("1250.75") + index * 10 + n, kind)
            for n, kind in enumerate(("checking", "savings", "credit"))
        )
        total = sum((a.amount or Decimal(0) for a in accounts), Decimal(0))
        pave.append(
            BalanceRow(user_id, month, accounts, total, updated, ttl.balance(updated)).to_item()
        )
    pave.append(
        AlertRow(
            user_id,
            True,
            now - timedelta(days=2),
            Decimal("100.00"),
            Decimal("84.20"),
            Decimal("96.10"),
        ).to_item()
    )
    pave.append(PaveLabelRow(user_id, REFRESH_INSIGHTS, now - timedelta(hours=5)).to_item())
    for hours_ago, request_id in ((1, "req-a"), (30, "req-b"), (200, "req-old")):
        updated = now - timedelta(hours=hours_ago)
        pave.append(LastPageRow(user_id, request_id, 4, updated, ttl.last_page(updated)).to_item())
    pave.append(
        IncomeRow(
            user_id,
            "ACME PAYROLL",
            Decimal("1842.50"),
            "biweekly",
            today + timedelta(days=9),
            now - timedelta(days=1),
        ).to_item()
    )
    latest, older = now - timedelta(hours=3), now - timedelta(days=8)
    for mined_at in (older, latest):
        pave.append(MineRow(user_id, mined_at, RECURRING_PER_MINE, RITUALS_PER_MINE).to_item())
        for kind, count, prefix in (
            (RECURRING, RECURRING_PER_MINE, "m"),
            (RITUAL, RITUALS_PER_MINE, "r"),
        ):
            for n in range(count):
                due = today + timedelta(days=n % 28)
                row = ExpenseRow(
                    user_id,
                    mined_at,
                    f"{prefix}-merchant-{n:02d}",
                    f"Merchant {n:02d}",
                    "monthly" if n % 3 else "weekly",
                    Decimal("9.99") + n,
                    due,
                    CATEGORIES[n % len(CATEGORIES)],
                    ttl.expense(due, settings.expense_ttl_days),
                )
                pave.append(expense_to_item(kind, row))
    for days_ago in range(SCORES):
        scored = now - timedelta(days=days_ago, minutes=5)
        pave.append(
            ScoreRow(
                user_id,
                Decimal("0.50") + Decimal(days_ago) / 100,
                "ca-2026.11",
                scored,
                ttl.score(scored, settings.score_ttl_days),
            ).to_item()
        )
    runs: list[Item] = []
    for days_ago in range(DETECTION_RUNS):
        run_date = now - timedelta(days=days_ago, hours=2)
        deposits = tuple(
            DetectedTransaction(
                f"txn-{n}", "ACME PAYROLL", Decimal("1842.50"), today - timedelta(days=14 * n)
            )
            for n in range(4)
        )
        runs.append(
            IncomeDetectionRunRow(
                user_id,
                run_date,
                (
                    MethodResult("a", deposits),
                    MethodResult("b", deposits[:2]),
                    MethodResult("ml", deposits),
                ),
                True,
                days_ago == 0,
                f"pred-{days_ago}",
                tuple(t.transaction_id or "" for t in deposits),
                (Decimal("0.97"), Decimal("0.91"), Decimal("0.88"), Decimal("0.42")),
                ttl.income_detection(run_date),
            ).to_item()
        )
    return (
        [(Table.PAVE, item) for item in pave]
        + [(Table.INCOME_DETECTION, item) for item in runs]
        + [(Table.BALANCE_SETTINGS, {"user_id": user_id, "low_balance_alert": Decimal("100.00")})]
    )


async def seed_users(dynamo: Dynamo, user_ids: list[str], now: datetime, settings: Settings) -> int:
    """Write every user's items, a few users at a time; returns how many items."""
    slots = asyncio.Semaphore(8)

    async def seed(user_id: str) -> int:
        items = user_items(user_id, now, settings)
        async with slots:
            await dynamo.put_many(items)
        return len(items)

    return sum(await asyncio.gather(*(seed(user_id) for user_id in user_ids)))
