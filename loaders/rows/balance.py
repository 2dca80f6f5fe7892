from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal

from loaders import validation
from loaders.codec import format_month
from loaders.entity import TtlRule, entity
from loaders.errors import BadUserInput
from loaders.record import Input, Record, attribute, expiry, key, record, user_key
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["SAVINGS_MONTH", "AccountBalance", "BalanceRow"]

#: Far above real use, low enough to keep one item under 400 KB.
MAX_ACCOUNTS = 100


@record
class AccountBalance(Record):
    """One account of a savings snapshot (the `accounts` list's Maps)."""

    account_id: str | None = attribute(
        "The bank account's id.", input=Input("The bank account's id.", validation.identifier)
    )
    amount: Decimal | None = attribute(
        "The account's balance, in dollars (two decimals at most).",
        input=Input("The account's balance, in dollars (two decimals at most).", validation.money),
    )
    subtype: str | None = attribute(
        "The account's kind, as the bank names it (e.g. `savings`, `checking`).",
        input=Input("The account's kind, as the bank names it (e.g. `savings`).", validation.text),
    )


@record
class BalanceRow(Record):
    """The `balance` entity: one user's savings snapshot for one calendar month."""

    TYPE = "balance"

    user_id: str = user_key("The user whose savings these are.")
    month: str = key(
        "The month, `YYYY-MM` (UTC).",
        input=Input("`YYYY-MM`; default: the current UTC month.", validation.month, default=None),
    )
    accounts: tuple[AccountBalance, ...] = attribute(
        "Each account's balance at the snapshot.",
        input=Input("Each account's balance.", maximum=MAX_ACCOUNTS),
    )
    total_available: Decimal | None = attribute(
        "The total available across the accounts, in dollars.",
        input=Input(
            "The total available, in dollars; default: the sum of the accounts' amounts.",
            validation.money,
            default=None,
        ),
    )
    updated_date: datetime | None = attribute(
        "When the snapshot was last written (UTC).", clock=True
    )
    ttl: int | None = expiry()

    def completed(self, now: datetime) -> BalanceRow:
        """The month's default and bound, unique accounts and the total's default."""
        this_month = format_month(now.date())
        month = self.month or this_month
        # A snapshot is of money already there: a month to come has none yet.
        if month > this_month:
            raise BadUserInput("month", f"must not be after the current month {this_month}")
        ids = [account.account_id for account in self.accounts]
        if len(set(ids)) != len(ids):
            raise BadUserInput("accounts", "must not repeat an accountId")
        total = self.total_available
        if total is None:
            amounts = (account.amount or Decimal(0) for account in self.accounts)
            total = validation.canonical(sum(amounts, Decimal(0)))
        return replace(self, month=month, total_available=total)


#: A user's savings snapshot for one calendar month (`month` is `YYYY-MM`).
SAVINGS_MONTH = entity(
    "savings_month",
    Table.PAVE,
    pk=USERS,
    sk="SAVINGS_MONTH#{month}",
    ttl=TtlRule("updated_date", timedelta(days=365)),
    wakes=True,
    record=BalanceRow,
    read_units=0.5,
    read_items=1,
)
