from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from loaders import keys
from loaders.codec import Item
from loaders.rows import fields


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
            user_id=keys.user_id_of(item["PK"]),
            month=keys.savings_month_of(item["SK"]),
            accounts=tuple(AccountBalance.from_map(a) for a in fields.items(item, "accounts")),
            total_available=fields.decimal(item, "total_available"),
            updated_date=fields.instant(item, "updated_date"),
            ttl=fields.integer(item, "ttl"),
        )

    def to_item(self) -> Item:
        key = keys.savings_month(self.user_id, self.month)
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
