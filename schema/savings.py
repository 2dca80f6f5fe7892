from __future__ import annotations

from loaders.rows.balance import AccountBalance as AccountBalanceRow
from loaders.rows.balance import BalanceRow
from schema.declared import output


@output(AccountBalanceRow, description="One account's balance in a month's savings snapshot.")
class AccountBalance:
    pass


@output(
    BalanceRow,
    description="One calendar month's savings snapshot (the `balance` row, one per user per "
    "month, kept for a year after `updatedDate`).",
    nested=(AccountBalance,),
)
class SavingsMonth:
    pass
