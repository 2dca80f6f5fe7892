"""The miner's entities: a mine's metadata (`insights`) and the expenses it found
(`recurring`, `ritual`). Only the rows of a user's latest mine are current."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from loaders import keys
from loaders.codec import Item, format_instant, parse_instant
from loaders.rows import fields


@dataclass(frozen=True, slots=True)
class MineRow:
    user_id: str
    mined_at: datetime
    recurring_count: int | None
    ritual_count: int | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> MineRow:
        return cls(
            user_id=keys.user_id_of(item["PK"]),
            # The SK's time is the mine's identity; `mined_at` repeats it.
            mined_at=parse_instant(keys.mine_time_of(item["SK"])),
            recurring_count=fields.integer(item, "recurring_count"),
            ritual_count=fields.integer(item, "ritual_count"),
        )

    def to_item(self) -> Item:
        key = keys.mine(self.user_id, self.mined_at)
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
        user_id=keys.user_id_of(item["PK"]),
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
    build = keys.recurring if kind is RECURRING else keys.ritual
    last_mine = fields.put_instant(row.last_mine) or ""
    key = build(
        row.user_id, last_mine, row.merchant_key or "", row.frequency or "", str(row.amount)
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
