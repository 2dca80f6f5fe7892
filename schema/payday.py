from __future__ import annotations

from loaders.rows.payday import AlgorithmPrediction as AlgorithmPredictionRow
from loaders.rows.payday import PaydayRow
from schema.declared import output


@output(
    AlgorithmPredictionRow,
    description="One payday algorithm's full prediction: the payday, its cadence and the "
    "three collection dates it implies (calendar dates, as the algorithm computed them).",
)
class AlgorithmPrediction:
    pass


@output(
    PaydayRow,
    description="The user's payday prediction (the `payday` row, one per user, overwritten "
    "on each recompute). Served only on the UTC day it was computed on (`predictionDate` "
    "equals today's UTC date); the row itself is deleted 2 days after `createdDate`.",
    nested=(AlgorithmPrediction,),
)
class PaydayPrediction:
    pass
