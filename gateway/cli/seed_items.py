"""One builder of the items users' entities are stored as, for the demo users
(`gateway/cli/demo.py`) and the benchmark's (`support/seed.py`).

Each entity's row is built here once, from the few values that differ between the two (a
user, a date, an amount), with its TTL derived as its writer derives it; the callers say
only which rows a user has. Items come out grouped by table, each table's in the order built.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from gateway.settings import Settings
from loaders.codec import Item
from loaders.entities import (
    ALERT,
    BALANCE_SETTINGS,
    CASH_ADVANCE_SCORE,
    INCOME,
    INCOME_DETECTION_RUN,
    INCOME_VERIFICATION,
    LAST_PAGE,
    MINE,
    PAVE_LABEL,
    PAYDAY,
    SAVINGS_MONTH,
    Entity,
)
from loaders.rows.alert import AlertRow
from loaders.rows.balance import AccountBalance, BalanceRow
from loaders.rows.balance_settings import BalanceSettingsRow
from loaders.rows.feeder import REFRESH_INSIGHTS, LastPageRow, PaveLabelRow
from loaders.rows.income import IncomeRow
from loaders.rows.income_detection import IncomeDetectionRunRow, MethodResult
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.mine import EXPENSES, RECURRING, ExpenseKind, MineRow
from loaders.rows.payday import AlgorithmPrediction, PaydayRow
from loaders.rows.scores import ScoreRow
from loaders.tables import Table

PAYROLL = "ACME PAYROLL"


@dataclass(frozen=True, slots=True)
class Expense:
    """A recurring expense or ritual of a mine, due `due_in_days` from today."""

    name: str
    frequency: str
    amount: Decimal
    due_in_days: int
    category: str | None


def prediction(day: date) -> AlgorithmPrediction:
    """A biweekly prediction made on `day`: payday in 9 days, collected on it, a day or three
    days after."""
    payday = day + timedelta(days=9)
    return AlgorithmPrediction(
        payday=payday,
        frequency="biweekly",
        instant_collection_date=payday,
        standard_collection_date=day + timedelta(days=10),
        extended_collection_date=day + timedelta(days=12),
    )


class SeedItems:
    """Collects the items of users' rows, as of `now` (to the second)."""

    def __init__(self, now: datetime, settings: Settings) -> None:
        self.now = now.replace(microsecond=0)
        self.today = self.now.date()
        self.settings = settings
        self._items: list[tuple[Entity[Any], Item]] = []

    def items(self) -> list[tuple[Table, Item]]:
        """Each entity's items, in its declared table: grouped by table, in the tables'
        order, each table's in the order built."""
        return [
            (table, item)
            for table in Table
            for declared, item in self._items
            if declared.table is table
        ]

    def _add(self, declared: Entity[Any], item: Item) -> None:
        self._items.append((declared, item))

    def payday(
        self,
        user_id: str,
        created: datetime,
        detection_used: str,
        *,
        predicted_on: date | None = None,
        every_algorithm: bool = False,
    ) -> None:
        """FloatMe's prediction (and, with `every_algorithm`, Pave's and v2's alike)."""
        day = created.date() if predicted_on is None else predicted_on
        fm = prediction(day)
        others = fm if every_algorithm else None
        self._add(
            PAYDAY,
            PaydayRow(
                user_id=user_id,
                prediction_date=day,
                detection_used=detection_used,
                next_date=fm.payday,
                source=PAYROLL,
                frequency="biweekly",
                loan_id=f"loan-{user_id}",
                created_date=created,
                pave=others,
                fm=fm,
                v2=others,
                ttl=PAYDAY.expires(created),
            ).to_item(),
        )

    def income_verification(self, user_id: str, txn_id: str, notes: tuple[str, ...]) -> None:
        self._add(
            INCOME_VERIFICATION,
            IncomeVerificationRow(
                user_id=user_id,
                txn_name=PAYROLL,
                txn_id=txn_id,
                amount_in_cents=184250,
                pay_frequency="biweekly",
                institution_id="ins_109508",
                verification_status="approved",
                is_valid=True,
                last_updated=self.now - timedelta(days=3),
                notes=notes,
                verification_source="ollie",
            ).to_item(),
        )

    def balance(
        self, user_id: str, month: str, accounts: tuple[AccountBalance, ...], updated: datetime
    ) -> None:
        """A savings month: its accounts, their total, expiring as the writer's would."""
        total = sum((account.amount or Decimal(0) for account in accounts), Decimal(0))
        self._add(
            SAVINGS_MONTH,
            BalanceRow(
                user_id, month, accounts, total, updated, SAVINGS_MONTH.expires(updated)
            ).to_item(),
        )

    def alert(self, user_id: str) -> None:
        """A low-balance alert sent two days ago."""
        self._add(
            ALERT,
            AlertRow(
                user_id=user_id,
                alert_sent=True,
                updated_date=self.now - timedelta(days=2),
                balance_setting=Decimal("100.00"),
                available_balance=Decimal("84.20"),
                current_balance=Decimal("96.10"),
            ).to_item(),
        )

    def pave_label(self, user_id: str) -> None:
        self._add(
            PAVE_LABEL,
            PaveLabelRow(user_id, REFRESH_INSIGHTS, self.now - timedelta(hours=5)).to_item(),
        )

    def last_page(self, user_id: str, request_id: str, page: int, updated: datetime) -> None:
        self._add(
            LAST_PAGE,
            LastPageRow(user_id, request_id, page, updated, LAST_PAGE.expires(updated)).to_item(),
        )

    def income(self, user_id: str) -> None:
        """A biweekly payroll, next paid in 9 days."""
        self._add(
            INCOME,
            IncomeRow(
                user_id,
                PAYROLL,
                Decimal("1842.50"),
                "biweekly",
                self.today + timedelta(days=9),
                self.now - timedelta(days=1),
            ).to_item(),
        )

    def mine(self, user_id: str, mined_at: datetime, recurring: int, rituals: int) -> None:
        self._add(MINE, MineRow(user_id, mined_at, recurring, rituals).to_item())

    def expenses(
        self, user_id: str, mined_at: datetime, kind: ExpenseKind, expenses: Iterable[Expense]
    ) -> None:
        """The mine's expenses of `kind` (RECURRING or RITUAL), keyed by their names."""
        prefix = "m" if kind == RECURRING else "r"
        for expense in expenses:
            due = self.today + timedelta(days=expense.due_in_days)
            row = kind(
                user_id=user_id,
                last_mine=mined_at,
                merchant_key=f"{prefix}-{expense.name.lower().replace(' ', '-')}",
                merchant_name=expense.name,
                frequency=expense.frequency,
                amount=expense.amount,
                due_date=due,
                category=expense.category,
                ttl=EXPENSES[kind].expires(due, self.settings.expense_ttl_days),
            )
            self._add(EXPENSES[kind], row.to_item())

    def score(self, user_id: str, score: Decimal, model_version: str, scored: datetime) -> None:
        ttl_days = self.settings.score_ttl_days
        self._add(
            CASH_ADVANCE_SCORE,
            ScoreRow(
                user_id, score, model_version, scored, CASH_ADVANCE_SCORE.expires(scored, ttl_days)
            ).to_item(),
        )

    def detection_run(
        self,
        user_id: str,
        run_date: datetime,
        methods: tuple[MethodResult, ...],
        *,
        ml_results_used: bool,
        prediction_id: str,
        predictions: tuple[str, ...],
        probabilities: tuple[Decimal, ...],
    ) -> None:
        """An income detection run with the ML method enabled."""
        self._add(
            INCOME_DETECTION_RUN,
            IncomeDetectionRunRow(
                user_id=user_id,
                run_date=run_date,
                method_results=methods,
                ml_enabled=True,
                ml_results_used=ml_results_used,
                ml_prediction_id=prediction_id,
                ml_predictions=predictions,
                ml_probabilities=probabilities,
                ttl=INCOME_DETECTION_RUN.expires(run_date),
            ).to_item(),
        )

    def low_balance_alert(self, user_id: str, threshold: Decimal | None) -> None:
        self._add(BALANCE_SETTINGS, BalanceSettingsRow(user_id, threshold).to_item())
