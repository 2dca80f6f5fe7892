from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.mine import ExpenseRow, MineRow


@strawberry.type(description="A mine's metadata (the `insights` entity).")
class Mine:
    mined_at: dt.datetime
    recurring_count: int | None
    ritual_count: int | None

    @classmethod
    def from_row(cls, row: MineRow) -> Mine:
        return cls(
            mined_at=row.mined_at,
            recurring_count=row.recurring_count,
            ritual_count=row.ritual_count,
        )


@strawberry.type
class RecurringExpense:
    last_mine: dt.datetime | None
    merchant_uuid: str | None
    merchant_name: str | None
    frequency: str | None
    amount: Decimal | None
    due_date: dt.date | None
    category: str | None

    @classmethod
    def from_row(cls, row: ExpenseRow) -> RecurringExpense:
        return cls(
            last_mine=row.last_mine,
            merchant_uuid=row.merchant_key,
            merchant_name=row.merchant_name,
            frequency=row.frequency,
            amount=row.amount,
            due_date=row.due_date,
            category=row.category,
        )


@strawberry.type
class Ritual:
    last_mine: dt.datetime | None
    merchant_id: str | None
    merchant_name: str | None
    frequency: str | None
    amount: Decimal | None
    due_date: dt.date | None
    category: str | None

    @classmethod
    def from_row(cls, row: ExpenseRow) -> Ritual:
        return cls(
            last_mine=row.last_mine,
            merchant_id=row.merchant_key,
            merchant_name=row.merchant_name,
            frequency=row.frequency,
            amount=row.amount,
            due_date=row.due_date,
            category=row.category,
        )
