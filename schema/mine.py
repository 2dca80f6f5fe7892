from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

# These types complete straight from their rows (`loaders.rows.mine`: `MineRow`,
# `ExpenseRow`), which have the same attributes.


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


@strawberry.type(
    description="A recurring expense (bill or subscription) the latest mine found (a "
    "`recurring` row)."
)
class RecurringExpense:
    last_mine: dt.datetime | None = strawberry.field(
        description="The mine this row came from (UTC); always the user's latest mine when served."
    )
    # The row's `merchant_key` (`merchant_uuid` on a recurring item).
    merchant_key: str | None = strawberry.field(
        name="merchantUuid", description="The merchant's UUID."
    )
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


@strawberry.type(
    description="A ritual, a habitual spend at one merchant, the latest mine found (a "
    "`ritual` row)."
)
class Ritual:
    last_mine: dt.datetime | None = strawberry.field(
        description="The mine this row came from (UTC); always the user's latest mine when served."
    )
    # The row's `merchant_key` (`merchant_id` on a ritual item).
    merchant_key: str | None = strawberry.field(name="merchantId", description="The merchant's id.")
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
