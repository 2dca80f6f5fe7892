from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from loaders import keys
from loaders.codec import Item, format_instant, parse_instant
from loaders.rows import fields


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
            user_id=keys.user_id_of(item["PK"]),
            score=fields.decimal(item, "score"),
            model_version=fields.text(item, "model_version"),
            scored_at=parse_instant(keys.cash_advance_score_time_of(item["SK"])),
            ttl=fields.integer(item, "ttl"),
        )

    def to_item(self) -> Item:
        key = keys.cash_advance_score(self.user_id, self.scored_at)
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
