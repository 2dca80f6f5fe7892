"""recordSavingsSnapshot: one month's `balance` row (TTL one year)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from loaders import validation
from loaders.codec import format_month
from loaders.errors import BadUserInput
from loaders.rows.balance import MAX_ACCOUNTS, SAVINGS_MONTH, AccountBalance, BalanceRow
from loaders.transactions import Writes

__all__ = ["AccountCommand", "SavingsSnapshotCommand", "balance_row", "record_savings_snapshot"]


@dataclass(frozen=True, slots=True)
class AccountCommand:
    account_id: str
    amount: Decimal
    subtype: str


@dataclass(frozen=True, slots=True)
class SavingsSnapshotCommand:
    user_id: str
    accounts: Sequence[AccountCommand]
    #: `YYYY-MM`; None: the current UTC month.
    month: str | None = None
    #: None: the accounts' sum.
    total_available: Decimal | None = None


def balance_row(command: SavingsSnapshotCommand, now: datetime) -> BalanceRow:
    this_month = format_month(now.date())
    month = this_month if command.month is None else validation.month("month", command.month)
    # A snapshot is of money already there: a month to come has none yet.
    if month > this_month:
        raise BadUserInput("month", f"must not be after the current month {this_month}")
    validation.bounded("accounts", command.accounts, maximum=MAX_ACCOUNTS)
    accounts = tuple(
        AccountBalance(
            account_id=validation.identifier(f"accounts[{n}].accountId", account.account_id),
            amount=validation.money(f"accounts[{n}].amount", account.amount),
            subtype=validation.text(f"accounts[{n}].subtype", account.subtype),
        )
        for n, account in enumerate(command.accounts)
    )
    ids = [account.account_id for account in accounts]
    if len(set(ids)) != len(ids):
        raise BadUserInput("accounts", "must not repeat an accountId")
    if command.total_available is None:
        total = validation.canonical(sum((a.amount or Decimal(0) for a in accounts), Decimal(0)))
    else:
        total = validation.money("totalAvailable", command.total_available)
    return BalanceRow(
        user_id=validation.identifier("userId", command.user_id),
        month=month,
        accounts=accounts,
        total_available=total,
        updated_date=now,
        ttl=SAVINGS_MONTH.expires(now),
    )


def record_savings_snapshot(
    writes: Writes, command: SavingsSnapshotCommand, now: datetime
) -> BalanceRow:
    row = balance_row(command, now)
    writes.put(SAVINGS_MONTH.table, row.to_item())
    return row
