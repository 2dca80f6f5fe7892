from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.scores import ScoreRow


@strawberry.type
class CashAdvanceScore:
    score: Decimal | None
    model_version: str | None
    scored_at: dt.datetime

    @classmethod
    def from_row(cls, row: ScoreRow) -> CashAdvanceScore:
        return cls(score=row.score, model_version=row.model_version, scored_at=row.scored_at)
