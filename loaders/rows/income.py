from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from loaders.entity import entity
from loaders.record import Record, attribute, key, record
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["INCOME", "IncomeRow"]


@record
class IncomeRow(Record):
    """The user's income as Pave derived it."""

    TYPE = "income"

    user_id: str = key()
    source: str | None = attribute("The income's source (the payer).")
    amount: Decimal | None = attribute("The income's amount, in dollars.")
    frequency: str | None = attribute("The pay cadence (e.g. `biweekly`).")
    next_date: date | None = attribute("The next expected payment (a calendar date).")
    updated_date: datetime | None = attribute("When the row was last written (UTC).")


#: A user's detected income.
INCOME = entity(
    "income",
    Table.PAVE,
    pk=USERS,
    sk="INCOME#{user_id}",
    wakes=True,
    record=IncomeRow,
    read_units=0.5,
    read_items=1,
)
