from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from loaders.codec import Item
from loaders.entity import entity
from loaders.rows import fields
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["ALERT", "ALERT_COOLDOWN", "AlertRow"]

ALERT_COOLDOWN = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class AlertRow:
    user_id: str
    alert_sent: bool | None
    updated_date: datetime | None
    balance_setting: Decimal | None
    available_balance: Decimal | None
    current_balance: Decimal | None

    @property
    def cooldown_until(self) -> datetime | None:
        return self.updated_date + ALERT_COOLDOWN if self.updated_date is not None else None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> AlertRow:
        return cls(
            user_id=ALERT.user_of(item["PK"]),
            alert_sent=fields.boolean(item, "alert_sent"),
            updated_date=fields.instant(item, "updated_date"),
            balance_setting=fields.decimal(item, "balance_setting"),
            available_balance=fields.decimal(item, "available_balance"),
            current_balance=fields.decimal(item, "current_balance"),
        )

    def to_item(self) -> Item:
        key = ALERT.key(user_id=self.user_id)
        return fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "alert",
                "alert_sent": self.alert_sent,
                "updated_date": fields.put_instant(self.updated_date),
                "balance_setting": self.balance_setting,
                "available_balance": self.available_balance,
                "current_balance": self.current_balance,
            }
        )


#: The low-balance alert last sent (or not) to a user.
ALERT = entity(
    "alert",
    Table.PAVE,
    pk=USERS,
    sk="ALERT#{user_id}",
    wakes=True,
    row=AlertRow.from_item,
    read_units=0.5,
    read_items=1,
    example={"user_id": "demo-ada"},
)
