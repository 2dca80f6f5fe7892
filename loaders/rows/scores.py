from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from loaders.codec import Item, format_instant, parse_instant
from loaders.entity import TtlRule, entity
from loaders.rows import fields
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["CASH_ADVANCE_SCORE", "ScoreRow"]


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """A `scores` row: one cash-advance score."""

    user_id: str
    score: Decimal | None
    model_version: str | None
    scored_at: datetime
    ttl: int | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> ScoreRow:
        return cls(
            user_id=CASH_ADVANCE_SCORE.user_of(item["PK"]),
            score=fields.decimal(item, "score"),
            model_version=fields.text(item, "model_version"),
            scored_at=parse_instant(CASH_ADVANCE_SCORE.sk_value(item["SK"], "scored_at")),
            ttl=fields.integer(item, "ttl"),
        )

    def to_item(self) -> Item:
        key = CASH_ADVANCE_SCORE.key(user_id=self.user_id, scored_at=self.scored_at)
        return fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "scores",
                "score": self.score,
                "model_version": self.model_version,
                "scored_at": format_instant(self.scored_at),
                "ttl": self.ttl,
            }
        )


#: One cash-advance score; kept `SCORE_TTL_DAYS` after it was scored.
CASH_ADVANCE_SCORE = entity(
    "cash_advance_score",
    Table.PAVE,
    pk=USERS,
    sk="CASH_ADVANCE_SCORE#{scored_at:instant}",
    ttl=TtlRule("scored_at", setting="score_ttl_days"),
    wakes=True,
    row=ScoreRow.from_item,
    read_units=0.5,
    # The Query stops at `limit`: the default 10 of the 30 scores a month keeps.
    read_items=10,
    queried=True,
    example={"user_id": "demo-ada", "scored_at": datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)},
)
