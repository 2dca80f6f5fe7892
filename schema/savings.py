from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.balance import AccountBalance as AccountBalanceRow
from loaders.rows.balance import BalanceRow


@strawberry.type
class AccountBalance:
    account_id: str | None
    amount: Decimal | None
    subtype: str | None

    @classmethod
    def from_row(cls, row: AccountBalanceRow) -> AccountBalance:
        return cls(account_id=row.account_id, amount=row.amount, subtype=row.subtype)


@strawberry.type(description="One month's savings snapshot (the `balance` entity).")
class SavingsMonth:
    month: str = strawberry.field(description="`YYYY-MM`")
    accounts: list[AccountBalance]
    total_available: Decimal | None
    updated_date: dt.datetime | None

    @classmethod
    def from_row(cls, row: BalanceRow) -> SavingsMonth:
        return cls(
            month=row.month,
            accounts=[AccountBalance.from_row(account) for account in row.accounts],
            total_available=row.total_available,
            updated_date=row.updated_date,
        )
