from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.balance import AccountBalance as AccountBalanceRow
from loaders.rows.balance import BalanceRow


@strawberry.type(description="One account's balance in a month's savings snapshot.")
class AccountBalance:
    account_id: str | None = strawberry.field(description="The bank account's id.")
    amount: Decimal | None = strawberry.field(
        description="The account's balance, in dollars (two decimals at most)."
    )
    subtype: str | None = strawberry.field(
        description="The account's kind, as the bank names it (e.g. `savings`, `checking`)."
    )

    @classmethod
    def from_row(cls, row: AccountBalanceRow) -> AccountBalance:
        return cls(account_id=row.account_id, amount=row.amount, subtype=row.subtype)


@strawberry.type(
    description="One calendar month's savings snapshot (the `balance` row, one per user per "
    "month, kept for a year after `updatedDate`)."
)
class SavingsMonth:
    month: str = strawberry.field(description="The month, `YYYY-MM` (UTC).")
    accounts: list[AccountBalance] = strawberry.field(
        description="Each account's balance at the snapshot."
    )
    total_available: Decimal | None = strawberry.field(
        description="The total available across the accounts, in dollars."
    )
    updated_date: dt.datetime | None = strawberry.field(
        description="When the snapshot was last written (UTC)."
    )

    @classmethod
    def from_row(cls, row: BalanceRow) -> SavingsMonth:
        return cls(
            month=row.month,
            accounts=[AccountBalance.from_row(account) for account in row.accounts],
            total_available=row.total_available,
            updated_date=row.updated_date,
        )
