"""recordSavingsSnapshot: one month's `balance` row (TTL one year)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from loaders import validation
from loaders.codec import format_month
from loaders.errors import BadUserInput
from loaders.rows.balance import SAVINGS_MONTH, BalanceRow
from loaders.transactions import Writes

__all__ = ["balance_row", "record_savings_snapshot"]


def balance_row(values: Mapping[str, Any], now: datetime) -> BalanceRow:
    """The row of the input's `values`, each checked as `BalanceRow` declares, with the rules
    that are not one attribute's: the month's default and bound, unique accounts, the total's
    default."""
    row = BalanceRow.written(values, now)
    this_month = format_month(now.date())
    month = row.month or this_month
    # A snapshot is of money already there: a month to come has none yet.
    if month > this_month:
        raise BadUserInput("month", f"must not be after the current month {this_month}")
    ids = [account.account_id for account in row.accounts]
    if len(set(ids)) != len(ids):
        raise BadUserInput("accounts", "must not repeat an accountId")
    total = row.total_available
    if total is None:
        total = validation.canonical(
            sum((a.amount or Decimal(0) for a in row.accounts), Decimal(0))
        )
    return replace(row, month=month, total_available=total)


def record_savings_snapshot(writes: Writes, values: Mapping[str, Any], now: datetime) -> BalanceRow:
    row = balance_row(values, now)
    writes.put(SAVINGS_MONTH.table, row.to_item())
    return row
