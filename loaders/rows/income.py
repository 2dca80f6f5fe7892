from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from loaders import keys
from loaders.codec import Item
from loaders.rows import fields


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
            user_id=keys.user_id_of(item["PK"]),
            source=fields.text(item, "source"),
            amount=fields.decimal(item, "amount"),
            frequency=fields.text(item, "frequency"),
            next_date=fields.day(item, "next_date"),
            updated_date=fields.instant(item, "updated_date"),
        )

    def to_item(self) -> Item:
        key = keys.income(self.user_id)
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
