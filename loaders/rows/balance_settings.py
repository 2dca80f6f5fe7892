"""`user-balance-settings`, owned by another service: read only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from loaders.entity import entity
from loaders.rows import fields
from loaders.table import Table

__all__ = ["BALANCE_SETTINGS", "BalanceSettingsRow"]


@dataclass(frozen=True, slots=True)
class BalanceSettingsRow:
    user_id: str
    #: Dollars; None (NULL or absent) means alerts are off.
    low_balance_alert: Decimal | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> BalanceSettingsRow:
        return cls(
            user_id=BALANCE_SETTINGS.user_of(item["user_id"]),
            low_balance_alert=fields.decimal(item, "low_balance_alert"),
        )


#: A user's low-balance threshold, in another service's table (read only).
BALANCE_SETTINGS = entity(
    "balance_settings",
    Table.BALANCE_SETTINGS,
    pk="{user_id}",
    sk=None,
    wakes=True,
    row=BalanceSettingsRow.from_item,
    example={"user_id": "demo-ada"},
)
