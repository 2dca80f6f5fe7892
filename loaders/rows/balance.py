from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from loaders.codec import Item
from loaders.entity import TtlRule, entity
from loaders.rows import fields
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["MAX_ACCOUNTS", "SAVINGS_MONTH", "AccountBalance", "BalanceRow"]

#: Far above real use, low enough to keep one item under 400 KB.
MAX_ACCOUNTS = 100


@dataclass(frozen=True, slots=True)
class AccountBalance:
    account_id: str | None
    amount: Decimal | None
    subtype: str | None

    @classmethod
    def from_map(cls, value: Mapping[str, Any]) -> AccountBalance:
        return cls(
            account_id=fields.text(value, "account_id"),
            amount=fields.decimal(value, "amount"),
            subtype=fields.text(value, "subtype"),
        )

    def to_map(self) -> dict[str, Any]:
        return fields.without_none(
            {"account_id": self.account_id, "amount": self.amount, "subtype": self.subtype}
        )


@dataclass(frozen=True, slots=True)
class BalanceRow:
    """The `balance` entity: one user's savings snapshot for one calendar month."""

    user_id: str
    month: str
    accounts: tuple[AccountBalance, ...]
    total_available: Decimal | None
    updated_date: datetime | None
    ttl: int | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> BalanceRow:
        return cls(
            user_id=SAVINGS_MONTH.user_of(item["PK"]),
            month=SAVINGS_MONTH.sk_value(item["SK"], "month"),
            accounts=tuple(AccountBalance.from_map(a) for a in fields.items(item, "accounts")),
            total_available=fields.decimal(item, "total_available"),
            updated_date=fields.instant(item, "updated_date"),
            ttl=fields.integer(item, "ttl"),
        )

    def to_item(self) -> Item:
        key = SAVINGS_MONTH.key(user_id=self.user_id, month=self.month)
        return fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "balance",
                "accounts": [account.to_map() for account in self.accounts],
                "total_available": self.total_available,
                "updated_date": fields.put_instant(self.updated_date),
                "ttl": self.ttl,
            }
        )


#: A user's savings snapshot for one calendar month (`month` is `YYYY-MM`).
SAVINGS_MONTH = entity(
    "savings_month",
    Table.PAVE,
    pk=USERS,
    sk="SAVINGS_MONTH#{month}",
    ttl=TtlRule("updated_date", timedelta(days=365)),
    wakes=True,
    row=BalanceRow.from_item,
    read_units=0.5,
    read_items=1,
    example={"user_id": "demo-ada", "month": "2026-12"},
)
