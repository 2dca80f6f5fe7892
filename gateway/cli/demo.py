"""Demo users for the embedded mode: between them they hold every entity, with expired rows,
a stale payday, an older mine, a user with nothing, and one whose balance alert is due, so the
read rules and every answer of a first `evaluateBalanceAlert` but LOCKED show."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from gateway.cli.seed_items import Expense, SeedItems
from gateway.settings import Settings
from loaders.codec import Item, format_month, months_back
from loaders.dynamodb import Dynamo
from loaders.rows.balance import AccountBalance
from loaders.rows.income_detection import DetectedTransaction, MethodResult
from loaders.rows.mine import RECURRING, RITUAL
from loaders.tables import Table

#: Everything current, two mines, a year of savings.
ADA = "demo-ada"
#: A payday from yesterday, expired rows, alerts off.
BOB = "demo-bob"
#: No rows at all.
CY = "demo-cy"
#: A low-balance threshold and no alert yet: evaluated under it, the alert is SENT (Ada's
#: answers COOLDOWN, her alert sent two days ago; Bob's ALERTS_OFF).
DEE = "demo-dee"
DEE_THRESHOLD = Decimal("50.00")
DEMO_USERS = (ADA, BOB, CY, DEE)

RECURRING_EXPENSES = (
    Expense("Netflix", "monthly", Decimal("15.49"), 4, "entertainment"),
    Expense("City Power", "monthly", Decimal("88.10"), 11, "utilities"),
    Expense("Gym Co", "monthly", Decimal("29.99"), 11, None),
)
RITUALS = (
    Expense("Corner Coffee", "weekly", Decimal("4.75"), 1, "food"),
    Expense("Metro Card", "weekly", Decimal("33.00"), 3, "transport"),
)


def demo_items(now: datetime, settings: Settings) -> list[tuple[Table, Item]]:
    seed = SeedItems(now, settings)
    now, today = seed.now, seed.today
    seed.payday(ADA, now, "FLOATME_PAYDAY_CALCULATION")
    seed.payday(BOB, now - timedelta(days=1), "FLOATME_PAYDAY_CALCULATION")
    seed.income_verification(ADA, "txn-ada-0001", ("matched two consecutive deposits",))
    for index, month in enumerate(months_back(today, 12)):
        accounts = (
            AccountBalance("acc-checking", Decimal("1250.75") - index * 40, "checking"),
            AccountBalance("acc-savings", Decimal("3200.00") + index * 25, "savings"),
        )
        seed.balance(ADA, month, accounts, now - timedelta(days=30 * index))
    # Bob's savings month of this month expired already: it must not show.
    bob_account = (AccountBalance("acc-bob", Decimal("12.34"), "checking"),)
    seed.balance(BOB, format_month(today), bob_account, now - timedelta(days=366))
    seed.alert(ADA)
    seed.pave_label(ADA)
    seed.last_page(ADA, "req-7f3a", 4, now - timedelta(hours=1))
    seed.last_page(ADA, "req-0001", 9, now - timedelta(days=6))  # expired
    seed.income(ADA)
    latest, older = now - timedelta(hours=3), now - timedelta(days=8)
    for mined_at in (older, latest):
        seed.mine(ADA, mined_at, len(RECURRING_EXPENSES), len(RITUALS))
    seed.mine(BOB, older, 0, 0)
    for mined_at in (older, latest):
        seed.expenses(ADA, mined_at, RECURRING, RECURRING_EXPENSES)
        seed.expenses(ADA, mined_at, RITUAL, RITUALS)
    for days_ago in range(5):
        score = Decimal("0.71") + Decimal(days_ago) / 100
        seed.score(ADA, score, "ca-2026.11", now - timedelta(days=days_ago * 7))
    stale = now - timedelta(days=settings.score_ttl_days + 1)
    seed.score(BOB, Decimal("0.42"), "ca-2026.09", stale)
    deposit = DetectedTransaction("txn-ada-0001", "ACME PAYROLL", Decimal("1842.50"), today)
    for hours_ago in (2, 26):
        seed.detection_run(
            ADA,
            now - timedelta(hours=hours_ago),
            (
                MethodResult("a", (deposit,)),
                MethodResult("b", ()),
                MethodResult("ml", (deposit,)),
            ),
            ml_results_used=hours_ago == 2,
            prediction_id=f"pred-{hours_ago}",
            predictions=("txn-ada-0001",),
            probabilities=(Decimal("0.97"),),
        )
    seed.low_balance_alert(ADA, Decimal("100.00"))
    seed.low_balance_alert(BOB, None)
    seed.low_balance_alert(DEE, DEE_THRESHOLD)
    return seed.items()


async def seed_demo(dynamo: Dynamo, now: datetime, settings: Settings) -> int:
    """Write the demo items; returns how many."""
    items = demo_items(now, settings)
    await dynamo.put_many(items)
    return len(items)
