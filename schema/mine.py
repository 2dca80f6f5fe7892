from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.mine import ExpenseRow, MineRow


@strawberry.type(
    description="One mine of the user's transactions (the `insights` row): when it ran and "
    "what it found. The newest one decides which recurring expenses and rituals are served."
)
class Mine:
    mined_at: dt.datetime = strawberry.field(description="When the mine ran (UTC).")
    recurring_count: int | None = strawberry.field(
        description="How many recurring expenses it found, when recorded."
    )
    ritual_count: int | None = strawberry.field(
        description="How many rituals it found, when recorded."
    )

    @classmethod
    def from_row(cls, row: MineRow) -> Mine:
        return cls(
            mined_at=row.mined_at,
            recurring_count=row.recurring_count,
            ritual_count=row.ritual_count,
        )


@strawberry.type(
    description="A recurring expense (bill or subscription) the latest mine found (a "
    "`recurring` row)."
)
class RecurringExpense:
    last_mine: dt.datetime | None = strawberry.field(
        description="The mine this row came from (UTC); always the user's latest mine when served."
    )
    merchant_uuid: str | None = strawberry.field(description="The merchant's UUID.")
    merchant_name: str | None = strawberry.field(description="The merchant's name.")
    frequency: str | None = strawberry.field(
        description="How often the expense recurs (e.g. `monthly`)."
    )
    amount: Decimal | None = strawberry.field(description="The expected amount, in dollars.")
    due_date: dt.date | None = strawberry.field(
        description="The next due date (a calendar date); the row is deleted "
        "`INSIGHT_EXPENSE_TTL_DAYS` days (default 30) after it, at 00:00 UTC."
    )
    category: str | None = strawberry.field(
        description="The spending category, when the mine gave one."
    )

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


@strawberry.type(
    description="A ritual, a habitual spend at one merchant, the latest mine found (a "
    "`ritual` row)."
)
class Ritual:
    last_mine: dt.datetime | None = strawberry.field(
        description="The mine this row came from (UTC); always the user's latest mine when served."
    )
    merchant_id: str | None = strawberry.field(description="The merchant's id.")
    merchant_name: str | None = strawberry.field(description="The merchant's name.")
    frequency: str | None = strawberry.field(
        description="How often the expense recurs (e.g. `monthly`)."
    )
    amount: Decimal | None = strawberry.field(description="The expected amount, in dollars.")
    due_date: dt.date | None = strawberry.field(
        description="The next due date (a calendar date); the row is deleted "
        "`INSIGHT_EXPENSE_TTL_DAYS` days (default 30) after it, at 00:00 UTC."
    )
    category: str | None = strawberry.field(
        description="The spending category, when the mine gave one."
    )

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
