from __future__ import annotations

import datetime as dt

import strawberry

from loaders.rows.payday import AlgorithmPrediction as AlgorithmPredictionRow
from loaders.rows.payday import PaydayRow


@strawberry.type(
    description="One payday algorithm's full prediction: the payday, its cadence and the "
    "three collection dates it implies (calendar dates, as the algorithm computed them)."
)
class AlgorithmPrediction:
    payday: dt.date | None = strawberry.field(description="The predicted payday.")
    frequency: str | None = strawberry.field(
        description="The pay cadence the algorithm found (e.g. `biweekly`)."
    )
    instant_collection_date: dt.date | None = strawberry.field(
        description="The instant collection date for this payday."
    )
    standard_collection_date: dt.date | None = strawberry.field(
        description="The standard collection date for this payday."
    )
    extended_collection_date: dt.date | None = strawberry.field(
        description="The extended collection date for this payday."
    )

    @classmethod
    def from_row(cls, row: AlgorithmPredictionRow | None) -> AlgorithmPrediction | None:
        if row is None:
            return None
        return cls(
            payday=row.payday,
            frequency=row.frequency,
            instant_collection_date=row.instant_collection_date,
            standard_collection_date=row.standard_collection_date,
            extended_collection_date=row.extended_collection_date,
        )


@strawberry.type(
    description="The user's payday prediction (the `payday` row, one per user, overwritten "
    "on each recompute). Served only on the UTC day it was computed on (`predictionDate` "
    "equals today's UTC date); the row itself is deleted 2 days after `createdDate`."
)
class PaydayPrediction:
    prediction_date: dt.date | None = strawberry.field(
        description="The UTC day the prediction was computed on; always today's UTC date "
        "when served."
    )
    detection_used: str | None = strawberry.field(
        description="The winning algorithm: `PAVE_PAYDAY_CALCULATION`, "
        "`FLOATME_V2_PAYDAY_CALCULATION` or `FLOATME_PAYDAY_CALCULATION`."
    )
    next_date: dt.date | None = strawberry.field(
        description="The chosen prediction's next payday (a calendar date)."
    )
    source: str | None = strawberry.field(
        description="The chosen prediction's income source name (the employer or payer)."
    )
    frequency: str | None = strawberry.field(
        description="The chosen prediction's pay cadence (e.g. `biweekly`)."
    )
    loan_id: str | None = strawberry.field(
        description="The loan whose request computed this prediction."
    )
    created_date: dt.datetime | None = strawberry.field(
        description="When the row was written (UTC)."
    )
    pave: AlgorithmPrediction | None = strawberry.field(
        description="The Pave algorithm's full prediction; null when the chain "
        "short-circuited before it ran."
    )
    fm: AlgorithmPrediction | None = strawberry.field(
        description="The FloatMe algorithm's full prediction."
    )
    v2: AlgorithmPrediction | None = strawberry.field(
        description="The FloatMe V2 algorithm's full prediction; null when the chain "
        "short-circuited before it ran."
    )

    @classmethod
    def from_row(cls, row: PaydayRow) -> PaydayPrediction:
        return cls(
            prediction_date=row.prediction_date,
            detection_used=row.detection_used,
            next_date=row.next_date,
            source=row.source,
            frequency=row.frequency,
            loan_id=row.loan_id,
            created_date=row.created_date,
            pave=AlgorithmPrediction.from_row(row.pave),
            fm=AlgorithmPrediction.from_row(row.fm),
            v2=AlgorithmPrediction.from_row(row.v2),
        )
