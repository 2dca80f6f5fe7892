from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry


@strawberry.type(
    description="The user's income as Pave derived it (the `income` row, one per user, "
    "never expired)."
)
class Income:
    source: str | None = strawberry.field(description="The income's source (the payer).")
    amount: Decimal | None = strawberry.field(description="The income's amount, in dollars.")
    frequency: str | None = strawberry.field(description="The pay cadence (e.g. `biweekly`).")
    next_date: dt.date | None = strawberry.field(
        description="The next expected payment (a calendar date)."
    )
    updated_date: dt.datetime | None = strawberry.field(
        description="When the row was last written (UTC)."
    )
