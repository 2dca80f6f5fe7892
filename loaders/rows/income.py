from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from loaders.codec import Item
from loaders.entity import entity
from loaders.rows import fields
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["INCOME", "IncomeRow"]


@dataclass(frozen=True, slots=True)
class IncomeRow:
    user_id: str
    source: str | None
    amount: Decimal | None
    frequency: str | None
    next_date: date | None
    updated_date: datetime | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> IncomeRow:
        return cls(
            user_id=INCOME.user_of(item["PK"]),
            source=fields.text(item, "source"),
            amount=fields.decimal(item, "amount"),
            frequency=fields.text(item, "frequency"),
            next_date=fields.day(item, "next_date"),
            updated_date=fields.instant(item, "updated_date"),
        )

    def to_item(self) -> Item:
        key = INCOME.key(user_id=self.user_id)
        return fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "income",
                "source": self.source,
                "amount": self.amount,
                "frequency": self.frequency,
                "next_date": fields.put_day(self.next_date),
                "updated_date": fields.put_instant(self.updated_date),
            }
        )


#: A user's detected income.
INCOME = entity(
    "income",
    Table.PAVE,
    pk=USERS,
    sk="INCOME#{user_id}",
    wakes=True,
    row=IncomeRow.from_item,
    read_units=0.5,
    read_items=1,
    example={"user_id": "demo-ada"},
)
