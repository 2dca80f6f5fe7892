"""Realistic users for the benchmark: tens of recurring rows over two mines, a year of
savings months, a month of daily scores, a week of income detection runs."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from decimal import Decimal

from gateway.cli.seed_items import Expense, SeedItems
from gateway.settings import Settings
from loaders.codec import Item, months_back
from loaders.dynamodb import Dynamo
from loaders.rows.balance import AccountBalance
from loaders.rows.income_detection import DetectedTransaction, MethodResult
from loaders.rows.mine import RECURRING, RITUAL
from loaders.tables import Table

RECURRING_PER_MINE = 24
RITUALS_PER_MINE = 8
SCORES = 30
DETECTION_RUNS = 7

CATEGORIES = ("utilities", "entertainment", "transport", "food", None)


def _expenses(count: int) -> list[Expense]:
    return [
        Expense(
            f"Merchant {n:02d}",
            "monthly" if n % 3 else "weekly",
            Decimal("9.99") + n,
            n % 28,
            CATEGORIES[n % len(CATEGORIES)],
        )
        for n in range(count)
    ]


def user_items(user_id: str, now: datetime, settings: Settings) -> list[tuple[Table, Item]]:
    seed = SeedItems(now, settings)
    now, today = seed.now, seed.today
    seed.payday(
        user_id,
        now - timedelta(hours=1),
        "FLOATME_V2_PAYDAY_CALCULATION",
        predicted_on=today,
        every_algorithm=True,
    )
    notes = ("matched two consecutive deposits", "employer verified")
    seed.income_verification(user_id, f"txn-{user_id}", notes)
    for index, month in enumerate(months_back(today, 12)):
        accounts = tuple(
            AccountBalance(f"acc-{kind}", Decimal("1250.75") + index * 10 + n, kind)
            for n, kind in enumerate(("checking", "savings", "credit"))
        )
        seed.balance(user_id, month, accounts, now - timedelta(days=30 * index))
    seed.alert(user_id)
    seed.pave_label(user_id)
    for hours_ago, request_id in ((1, "req-a"), (30, "req-b"), (200, "req-old")):
        seed.last_page(user_id, request_id, 4, now - timedelta(hours=hours_ago))
    seed.income(user_id)
    latest, older = now - timedelta(hours=3), now - timedelta(days=8)
    for mined_at in (older, latest):
        seed.mine(user_id, mined_at, RECURRING_PER_MINE, RITUALS_PER_MINE)
        seed.expenses(user_id, mined_at, RECURRING, _expenses(RECURRING_PER_MINE))
        seed.expenses(user_id, mined_at, RITUAL, _expenses(RITUALS_PER_MINE))
    for days_ago in range(SCORES):
        score = Decimal("0.50") + Decimal(days_ago) / 100
        seed.score(user_id, score, "ca-2026.11", now - timedelta(days=days_ago, minutes=5))
    deposits = tuple(
        DetectedTransaction(
            f"txn-{n}", "ACME PAYROLL", Decimal("1842.50"), today - timedelta(days=14 * n)
        )
        for n in range(4)
    )
    for days_ago in range(DETECTION_RUNS):
        seed.detection_run(
            user_id,
            now - timedelta(days=days_ago, hours=2),
            (
                MethodResult("a", deposits),
                MethodResult("b", deposits[:2]),
                MethodResult("ml", deposits),
            ),
            ml_results_used=days_ago == 0,
            prediction_id=f"pred-{days_ago}",
            predictions=tuple(t.transaction_id or "" for t in deposits),
            probabilities=(Decimal("0.97"), Decimal("0.91"), Decimal("0.88"), Decimal("0.42")),
        )
    seed.low_balance_alert(user_id, Decimal("100.00"))
    return seed.items()


async def seed_users(dynamo: Dynamo, user_ids: list[str], now: datetime, settings: Settings) -> int:
    """Write every user's items, a few users at a time; returns how many items."""
    slots = asyncio.Semaphore(8)

    async def seed(user_id: str) -> int:
        items = user_items(user_id, now, settings)
        async with slots:
            await dynamo.put_many(items)
        return len(items)

    return sum(await asyncio.gather(*(seed(user_id) for user_id in user_ids)))
