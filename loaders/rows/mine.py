"""The miner's entities: a mine's metadata (`insights`) and the expenses it found
(`recurring`, `ritual`). Only the rows of a user's latest mine are current."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import partial
from typing import Any

from loaders.codec import Item, format_instant, parse_instant
from loaders.entity import Entity, TtlRule, entity
from loaders.rows import fields
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
    "expense_from_item",
    "expense_to_item",
]


@dataclass(frozen=True, slots=True)
class MineRow:
    user_id: str
    mined_at: datetime
    recurring_count: int | None
    ritual_count: int | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> MineRow:
        return cls(
            user_id=MINE.user_of(item["PK"]),
            # The SK's time is the mine's identity; `mined_at` repeats it.
            mined_at=parse_instant(MINE.sk_value(item["SK"], "mined_at")),
            recurring_count=fields.integer(item, "recurring_count"),
            ritual_count=fields.integer(item, "ritual_count"),
        )

    def to_item(self) -> Item:
        key = MINE.key(user_id=self.user_id, mined_at=self.mined_at)
        return fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "insights",
                "mined_at": format_instant(self.mined_at),
                "recurring_count": self.recurring_count,
                "ritual_count": self.ritual_count,
            }
        )


@dataclass(frozen=True, slots=True)
class ExpenseRow:
    """A `recurring` or `ritual` row; `merchant_key` is `merchant_uuid` or `merchant_id`."""

    user_id: str
    last_mine: datetime | None
    merchant_key: str | None
    merchant_name: str | None
    frequency: str | None
    amount: Decimal | None
    due_date: date | None
    category: str | None
    ttl: int | None

    @property
    def sort_key(self) -> tuple[date, str]:
        """The contract's order: by due date, then merchant name."""
        return (self.due_date or date.max, self.merchant_name or "")


@dataclass(frozen=True, slots=True)
class ExpenseKind:
    entity: str
    merchant_attribute: str


RECURRING = ExpenseKind("recurring", "merchant_uuid")
RITUAL = ExpenseKind("ritual", "merchant_id")


def expense_from_item(kind: ExpenseKind, item: Mapping[str, Any]) -> ExpenseRow:
    return ExpenseRow(
        user_id=USERS.pk.value(item["PK"], "user_id"),
        last_mine=fields.instant(item, "last_mine"),
        merchant_key=fields.text(item, kind.merchant_attribute),
        merchant_name=fields.text(item, "merchant_name"),
        frequency=fields.text(item, "frequency"),
        amount=fields.decimal(item, "amount"),
        due_date=fields.day(item, "due_date"),
        category=fields.text(item, "category"),
        ttl=fields.integer(item, "ttl"),
    )


def expense_to_item(kind: ExpenseKind, row: ExpenseRow) -> Item:
    last_mine = fields.put_instant(row.last_mine) or ""
    key = EXPENSES[kind].key(
        user_id=row.user_id,
        last_mine=last_mine,
        merchant=row.merchant_key or "",
        frequency=row.frequency or "",
        amount=str(row.amount),
    )
    return fields.without_none(
        {
            "PK": key.pk,
            "SK": key.sk,
            "type": kind.entity,
            "last_mine": last_mine,
            kind.merchant_attribute: row.merchant_key,
            "merchant_name": row.merchant_name,
            "frequency": row.frequency,
            "amount": row.amount,
            "due_date": fields.put_day(row.due_date),
            "category": row.category,
            "ttl": row.ttl,
        }
    )


#: A mine's metadata: its time is its identity.
MINE = entity(
    "mine",
    Table.PAVE,
    pk="MINE#{user_id}",
    sk="TIME#{mined_at:instant}",
    wakes=True,
    row=MineRow.from_item,
    example={"user_id": "demo-ada", "mined_at": datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)},
)

_EXPENSE_EXAMPLE = {
    "user_id": "demo-ada",
    "last_mine": "2026-12-02T11:31:28Z",
    "merchant": "m-netflix",
    "frequency": "monthly",
    "amount": "15.49",
}
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
    row=partial(expense_from_item, RECURRING),
    read_units=2.0,
    read_items=48,
    queried=True,
    example=_EXPENSE_EXAMPLE,
)

RITUAL_EXPENSE = entity(
    "ritual",
    Table.PAVE,
    pk=USERS,
    sk="RITUAL#{last_mine}#MERCHANT#{merchant}#{frequency}#{amount}",
    ttl=_EXPENSE_TTL,
    wakes=True,
    row=partial(expense_from_item, RITUAL),
    read_units=0.5,
    read_items=16,
    queried=True,
    example=_EXPENSE_EXAMPLE,
)

EXPENSES: dict[ExpenseKind, Entity[ExpenseRow]] = {
    RECURRING: RECURRING_EXPENSE,
    RITUAL: RITUAL_EXPENSE,
}
