"""`user-balance-settings`, owned by another service: read only."""

from __future__ import annotations

from decimal import Decimal

from loaders.entity import entity
from loaders.record import Record, attribute, key, record
from loaders.table import Table

__all__ = ["BALANCE_SETTINGS", "BalanceSettingsRow"]


@record
class BalanceSettingsRow(Record):
    user_id: str = key()
    #: Dollars; None (NULL or absent) means alerts are off.
    low_balance_alert: Decimal | None = attribute(keep_null=True)


#: A user's low-balance threshold, in another service's table (read only).
BALANCE_SETTINGS = entity(
    "balance_settings",
    Table.BALANCE_SETTINGS,
    pk="{user_id}",
    sk=None,
    wakes=True,
    record=BalanceSettingsRow,
)
