"""The miner's entities: a mine's metadata (`insights`) and the expenses it found
(`recurring`, `ritual`). Only the rows of a user's latest mine are current."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypeAlias

from loaders.codec import Item, format_instant
from loaders.entity import Entity, TtlRule, entity
from loaders.record import Record, attribute, expiry, key, record
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = [
    "EXPENSES",
    "MINE",
    "RECURRING",
    "RECURRING_EXPENSE",
    "RITUAL",
    "RITUAL_EXPENSE",
    "ExpenseKind",
    "ExpenseRow",
    "MineRow",
    "RecurringExpenseRow",
    "RitualRow",
]


@record
class MineRow(Record):
    """A mine's metadata (the `insights` row)."""

    TYPE = "insights"

    user_id: str = key()
    # The SK's time is the mine's identity; `mined_at` repeats it.
    mined_at: datetime = key("When the mine ran (UTC).", stored="mined_at")
    recurring_count: int | None = attribute("How many recurring expenses it found, when recorded.")
    ritual_count: int | None = attribute("How many rituals it found, when recorded.")


_DUE = (
    "The next due date (a calendar date); the row is deleted `INSIGHT_EXPENSE_TTL_DAYS` days "
    "(default 30) after it, at 00:00 UTC."
)


@record
class ExpenseRow(Record):
    """A `recurring` or `ritual` row: `RecurringExpenseRow` and `RitualRow` name its merchant
    attribute (`merchant_uuid`, `merchant_id`), the row's `merchant_key`."""

    user_id: str = key()
    last_mine: datetime | None = attribute(
        "The mine this row came from (UTC); always the user's latest mine when served."
    )
    merchant_key: str | None = attribute()
    merchant_name: str | None = attribute("The merchant's name.")
    frequency: str | None = attribute("How often the expense recurs (e.g. `monthly`).")
    amount: Decimal | None = attribute("The expected amount, in dollars.")
    due_date: date | None = attribute(_DUE)
    category: str | None = attribute("The spending category, when the mine gave one.")
    ttl: int | None = expiry()

    def sort_key(self) -> tuple[date, str]:
        """The contract's order: by due date, then merchant name."""
        return (self.due_date or date.max, self.merchant_name or "")

    def to_item(self) -> Item:
        # The sort key holds the row's values as text: its own key, not one of its fields.
        last_mine = format_instant(self.last_mine) if self.last_mine is not None else ""
        key = self.entity().key(
            user_id=self.user_id,
            last_mine=last_mine,
            merchant=self.merchant_key or "",
            frequency=self.frequency or "",
            amount=str(self.amount),
        )
        return {"PK": key.pk, "SK": key.sk, "type": self.TYPE, **self.to_map()}


@record
class RecurringExpenseRow(ExpenseRow):
    TYPE = "recurring"

    merchant_key: str | None = attribute(
        "The merchant's UUID.", stored="merchant_uuid", name="merchantUuid"
    )


@record
class RitualRow(ExpenseRow):
    TYPE = "ritual"

    merchant_key: str | None = attribute(
        "The merchant's id.", stored="merchant_id", name="merchantId"
    )


#: Which expenses: their row's record.
ExpenseKind: TypeAlias = type[ExpenseRow]
RECURRING: ExpenseKind = RecurringExpenseRow
RITUAL: ExpenseKind = RitualRow


#: A mine's metadata: its time is its identity.
MINE = entity(
    "mine",
    Table.PAVE,
    pk="MINE#{user_id}",
    sk="TIME#{mined_at:instant}",
    wakes=True,
    record=MineRow,
)

#: An expense found by a mine, due on `due_date`; kept `EXPENSE_TTL` days after it.
_EXPENSE_TTL = TtlRule("due_date", setting="expense_ttl_days", from_midnight=True)

#: The recurring expenses: a Query of their prefix reads two mines' rows (2.0 units, 48 items).
RECURRING_EXPENSE = entity(
    "recurring",
    Table.PAVE,
    pk=USERS,
    sk="RECURRING#{last_mine}#MERCHANT#{merchant}#{frequency}#{amount}",
    ttl=_EXPENSE_TTL,
    wakes=True,
    record=RecurringExpenseRow,
    read_units=2.0,
    read_items=48,
    queried=True,
)

RITUAL_EXPENSE = entity(
    "ritual",
    Table.PAVE,
    pk=USERS,
    sk="RITUAL#{last_mine}#MERCHANT#{merchant}#{frequency}#{amount}",
    ttl=_EXPENSE_TTL,
    wakes=True,
    record=RitualRow,
    read_units=0.5,
    read_items=16,
    queried=True,
)

EXPENSES: dict[ExpenseKind, Entity[Any]] = {
    RECURRING: RECURRING_EXPENSE,
    RITUAL: RITUAL_EXPENSE,
}
