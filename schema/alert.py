from __future__ import annotations

import datetime as dt

import strawberry

from loaders.rows.alert import AlertRow
from schema.declared import output


@output(
    AlertRow,
    description="The user's last low-balance alert (the `alert` row, written by each alert "
    "sent): what was sent, against which threshold, and when.",
)
class BalanceAlert:
    # Not an attribute: the row's `cooldown_until`, derived from `updated_date`.
    cooldown_until: dt.datetime | None = strawberry.field(
        description="`updatedDate` + 7 days (UTC): no new alert is sent before then."
    )
