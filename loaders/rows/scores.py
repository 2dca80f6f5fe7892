from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from loaders.entity import TtlRule, entity
from loaders.record import Record, attribute, expiry, key, record
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["CASH_ADVANCE_SCORE", "ScoreRow"]


@record
class ScoreRow(Record):
    """A `scores` row: one cash-advance score."""

    TYPE = "scores"

    user_id: str = key()
    score: Decimal | None = attribute("The score the model gave, an exact decimal number.")
    model_version: str | None = attribute("The version of the model that scored.")
    # The same instant as an attribute and in the sort key: read from the first, else the key.
    scored_at: datetime = key("When the user was scored (UTC).", stored="scored_at")
    ttl: int | None = expiry()


#: One cash-advance score; kept `SCORE_TTL_DAYS` after it was scored.
CASH_ADVANCE_SCORE = entity(
    "cash_advance_score",
    Table.PAVE,
    pk=USERS,
    sk="CASH_ADVANCE_SCORE#{scored_at:instant}",
    ttl=TtlRule("scored_at", setting="score_ttl_days"),
    wakes=True,
    record=ScoreRow,
    read_units=0.5,
    # The Query stops at `limit`: the default 10 of the 30 scores a month keeps.
    read_items=10,
    queried=True,
)
