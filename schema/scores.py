from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry


@strawberry.type(
    description="One cash-advance score (a `scores` row), kept for `INSIGHT_SCORE_TTL_DAYS` "
    "days (default 30) after `scoredAt`."
)
class CashAdvanceScore:
    score: Decimal | None = strawberry.field(
        description="The score the model gave, an exact decimal number."
    )
    model_version: str | None = strawberry.field(
        description="The version of the model that scored."
    )
    scored_at: dt.datetime = strawberry.field(description="When the user was scored (UTC).")
