from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from loaders import validation
from loaders.entity import entity
from loaders.record import Input, Record, attribute, record, user_key
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["ALERT", "ALERT_COOLDOWN", "AlertRow"]

ALERT_COOLDOWN = timedelta(days=7)


@record
class AlertRow(Record):
    """The low-balance alert last sent to the user; evaluateBalanceAlert writes it with its
    input's balances, the threshold it found (`balance_setting`) and now."""

    TYPE = "alert"

    user_id: str = user_key("The user to evaluate.")
    alert_sent: bool | None = attribute(
        "Whether an alert was sent when the row was written.", fixed=True
    )
    updated_date: datetime | None = attribute(
        "When the alert was sent (UTC); the 7-day cooldown starts here.", clock=True
    )
    balance_setting: Decimal | None = attribute(
        "The low-balance threshold in force then, in dollars."
    )
    available_balance: Decimal | None = attribute(
        "The available balance that triggered the alert, in dollars.",
        input=Input(
            "The available balance now, in dollars; compared with the threshold.",
            validation.money,
        ),
    )
    current_balance: Decimal | None = attribute(
        "The current balance then, in dollars.",
        input=Input(
            "The current balance now, in dollars; stored with a sent alert.", validation.money
        ),
    )

    @property
    def cooldown_until(self) -> datetime | None:
        return self.updated_date + ALERT_COOLDOWN if self.updated_date is not None else None


#: The low-balance alert last sent (or not) to a user.
ALERT = entity(
    "alert",
    Table.PAVE,
    pk=USERS,
    sk="ALERT#{user_id}",
    wakes=True,
    record=AlertRow,
    read_units=0.5,
    read_items=1,
)
