from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.alert import AlertRow


@strawberry.type
class BalanceAlert:
    alert_sent: bool | None
    updated_date: dt.datetime | None
    balance_setting: Decimal | None
    available_balance: Decimal | None
    current_balance: Decimal | None
    cooldown_until: dt.datetime | None = strawberry.field(
        description="`updatedDate` + 7 days: no new alert before then."
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
