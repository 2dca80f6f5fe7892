"""`user-balance-settings`, owned by another service: read only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from loaders.rows import fields


@dataclass(frozen=True, slots=True)
class BalanceSettingsRow:
    user_id: str
    #: Dollars; None (NULL or absent) means alerts are off.
    low_balance_alert: Decimal | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> BalanceSettingsRow:
        return cls(
            user_id=item["user_id"],
            low_balance_alert=fields.decimal(item, "low_balance_alert"),
        )
