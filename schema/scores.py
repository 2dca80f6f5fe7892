from __future__ import annotations

from loaders.rows.scores import ScoreRow
from schema.declared import output


@output(
    ScoreRow,
    description="One cash-advance score (a `scores` row), kept for `INSIGHT_SCORE_TTL_DAYS` "
    "days (default 30) after `scoredAt`.",
)
class CashAdvanceScore:
    pass
