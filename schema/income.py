from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.income import IncomeRow


@strawberry.type
class Income:
    source: str | None
    amount: Decimal | None
    frequency: str | None
    next_date: dt.date | None
    updated_date: dt.datetime | None

    @classmethod
    def from_row(cls, row: IncomeRow) -> Income:
        return cls(
            source=row.source,
            amount=row.amount,
            frequency=row.frequency,
            next_date=row.next_date,
            updated_date=row.updated_date,
        )
