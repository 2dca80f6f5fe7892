"""Demo users for the embedded mode: between them they hold every entity, with expired rows,
a stale payday, an older mine and a user with nothing, so the read rules show."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from gateway.settings import Settings
from loaders import ttl
from loaders.codec import Item, format_month, months_back
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

#: Everything current, two mines, a year of savings.
ADA = "demo-ada"
#: A payday from yesterday, expired rows, alerts off.
BOB = "demo-bob"
#: No rows at all.
CY = "demo-cy"
DEMO_USERS = (ADA, BOB, CY)


def demo_items(now: datetime, settings: Settings) -> list[tuple[Table, Item]]:
    now = now.replace(microsecond=0)
    today = now.date()
    pave: list[Item] = []
    pave.append(_payday(ADA, now).to_item())
    pave.append(_payday(BOB, now - timedelta(days=1)).to_item())
    pave.append(
        IncomeVerificationRow(
            user_id=ADA,
            txn_name="ACME PAYROLL",
            txn_id="txn-ada-0001",
            amount_in_cents=184250,
            pay_frequency="biweekly",
            institution_id="ins_109508",
            verification_status="approved",
            is_valid=True,
            last_updated=now - timedelta(days=3),
            notes=("matched two consecutive deposits",),
            verification_source="ollie",
        ).to_item()
    )
    for index, month in enumerate(months_back(today, 12)):
        updated = now - timedelta(days=30 * index)
        accounts = (
            AccountBalance("acc-checking", Decimal("1250.75") - index * 40, "checking"),
            AccountBalance("acc-savings", Decimal("3200.00") + index * 25, "savings"),
        )
        pave.append(
            BalanceRow(
                user_id=ADA,
                month=month,
                accounts=accounts,
                total_available=sum((a.amount or Decimal(0) for a in accounts), Decimal(0)),
                updated_date=updated,
                ttl=ttl.balance(updated),
            ).to_item()
        )
    # Bob's savings month of this month expired already: it must not show.
    pave.append(
        BalanceRow(
            user_id=BOB,
            month=format_month(today),
            accounts=(AccountBalance("acc-bob", Decimal("12.34"), "checking"),),
            total_available=Decimal("12.34"),
            updated_date=now - timedelta(days=366),
            ttl=ttl.balance(now - timedelta(days=366)),
        ).to_item()
    )
    pave.append(
        AlertRow(
            user_id=ADA,
            alert_sent=True,
            updated_date=now - timedelta(days=2),
            balance_setting=Decimal("100.00"),
            available_balance=Decimal("84.20"),
            current_balance=Decimal("96.10"),
        ).to_item()
    )
    pave.append(PaveLabelRow(ADA, REFRESH_INSIGHTS, now - timedelta(hours=5)).to_item())
    fed = now - timedelta(hours=1)
    pave.append(LastPageRow(ADA, "req-7f3a", 4, fed, ttl.last_page(fed)).to_item())
    expired_page = now - timedelta(days=6)
    pave.append(
        LastPageRow(ADA, "req-0001", 9, expired_page, ttl.last_page(expired_page)).to_item()
    )
    pave.append(
        IncomeRow(
            ADA,
            "ACME PAYROLL",
            Decimal("1842.50"),
            "biweekly",
            today + timedelta(days=9),
            now - timedelta(days=1),
        ).to_item()
    )
    pave.extend(_mines(now, settings))
    for days_ago in range(5):
        scored = now - timedelta(days=days_ago * 7)
        pave.append(
            ScoreRow(
                ADA,
                Decimal("0.71") + Decimal(days_ago) / 100,
                "ca-2026.11",
                scored,
                ttl.score(scored, settings.score_ttl_days),
            ).to_item()
        )
    stale_score = now - timedelta(days=settings.score_ttl_days + 1)
    pave.append(
        ScoreRow(
            BOB,
            Decimal("0.42"),
            "ca-2026.09",
            stale_score,
            ttl.score(stale_score, settings.score_ttl_days),
        ).to_item()
    )
    runs: list[Item] = []
    for hours_ago in (2, 26):
        run_date = now - timedelta(hours=hours_ago)
        deposit = DetectedTransaction("txn-ada-0001", "ACME PAYROLL", Decimal("1842.50"), today)
        runs.append(
            IncomeDetectionRunRow(
                user_id=ADA,
                run_date=run_date,
                method_results=(
                    MethodResult("a", (deposit,)),
                    MethodResult("b", ()),
                    MethodResult("ml", (deposit,)),
                ),
                ml_enabled=True,
                ml_results_used=hours_ago == 2,
                ml_prediction_id=f"pred-{hours_ago}",
                ml_predictions=("txn-ada-0001",),
                ml_probabilities=(Decimal("0.97"),),
                ttl=ttl.income_detection(run_date),
            ).to_item()
        )
    settings_items: list[Item] = [
        {"user_id": ADA, "low_balance_alert": Decimal("100.00")},
        {"user_id": BOB, "low_balance_alert": None},
    ]
    return (
        [(Table.PAVE, item) for item in pave]
        + [(Table.INCOME_DETECTION, item) for item in runs]
        + [(Table.BALANCE_SETTINGS, item) for item in settings_items]
    )


def _payday(user_id: str, computed: datetime) -> PaydayRow:
    day = computed.date()
    fm = AlgorithmPrediction(
        payday=day + timedelta(days=9),
        frequency="biweekly",
        instant_collection_date=day + timedelta(days=9),
        standard_collection_date=day + timedelta(days=10),
        extended_collection_date=day + timedelta(days=12),
    )
    return PaydayRow(
        user_id=user_id,
        prediction_date=day,
        detection_used="FLOATME_PAYDAY_CALCULATION",
        next_date=fm.payday,
        source="ACME PAYROLL",
        frequency="biweekly",
        loan_id=f"loan-{user_id}",
        created_date=computed,
        pave=None,
        fm=fm,
        v2=None,
        ttl=ttl.payday(computed),
    )


def _mines(now: datetime, settings: Settings) -> list[Item]:
    items: list[Item] = []
    latest, older = now - timedelta(hours=3), now - timedelta(days=8)
    for mined_at in (older, latest):
        items.append(MineRow(ADA, mined_at, 3, 2).to_item())
    items.append(MineRow(BOB, older, 0, 0).to_item())
    recurring = [
        ("Netflix", "monthly", Decimal("15.49"), 4, "entertainment"),
        ("City Power", "monthly", Decimal("88.10"), 11, "utilities"),
        ("Gym Co", "monthly", Decimal("29.99"), 11, None),
    ]
    rituals = [
        ("Corner Coffee", "weekly", Decimal("4.75"), 1, "food"),
        ("Metro Card", "weekly", Decimal("33.00"), 3, "transport"),
    ]
    for mined_at in (older, latest):
        for kind, merchant_prefix, expenses in (
            (RECURRING, "m", recurring),
            (RITUAL, "r", rituals),
        ):
            for name, frequency, amount, due_in, category in expenses:
                due = now.date() + timedelta(days=due_in)
                row = ExpenseRow(
                    user_id=ADA,
                    last_mine=mined_at,
                    merchant_key=f"{merchant_prefix}-{name.lower().replace(' ', '-')}",
                    merchant_name=name,
                    frequency=frequency,
                    amount=amount,
                    due_date=due,
                    category=category,
                    ttl=ttl.expense(due, settings.expense_ttl_days),
                )
                items.append(expense_to_item(kind, row))
    return items


async def seed_demo(dynamo: Dynamo, now: datetime, settings: Settings) -> int:
    """Write the demo items; returns how many."""
    items = demo_items(now, settings)
    await dynamo.put_many(items)
    return len(items)
