from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.alert import AlertRow


@strawberry.type(
    description="The user's last low-balance alert (the `alert` row, written by each alert "
    "sent): what was sent, against which threshold, and when."
)
class BalanceAlert:
    alert_sent: bool | None = strawberry.field(
        description="Whether an alert was sent when the row was written."
    )
    updated_date: dt.datetime | None = strawberry.field(
        description="When the alert was sent (UTC); the 7-day cooldown starts here."
    )
    balance_setting: Decimal | None = strawberry.field(
        description="The low-balance threshold in force then, in dollars."
    )
    available_balance: Decimal | None = strawberry.field(
        description="The available balance that triggered the alert, in dollars."
    )
    current_balance: Decimal | None = strawberry.field(
        description="The current balance then, in dollars."
    )
    cooldown_until: dt.datetime | None = strawberry.field(
        description="`updatedDate` + 7 days (UTC): no new alert is sent before then."
    )

    @classmethod
    def from_row(cls, row: AlertRow) -> BalanceAlert:
        return cls(
            alert_sent=row.alert_sent,
            updated_date=row.updated_date,
            balance_setting=row.balance_setting,
            available_balance=row.available_balance,
            current_balance=row.current_balance,
            cooldown_until=row.cooldown_until,
        )
