from __future__ import annotations

import datetime as dt

import strawberry

from loaders.rows.payday import AlgorithmPrediction as AlgorithmPredictionRow
from loaders.rows.payday import PaydayRow


@strawberry.type(description="One payday algorithm's full prediction.")
class AlgorithmPrediction:
    payday: dt.date | None
    frequency: str | None
    instant_collection_date: dt.date | None
    standard_collection_date: dt.date | None
    extended_collection_date: dt.date | None

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


@strawberry.type(description="Today's payday prediction (served only on its own UTC day).")
class PaydayPrediction:
    prediction_date: dt.date | None
    detection_used: str | None
    next_date: dt.date | None
    source: str | None
    frequency: str | None
    loan_id: str | None
    created_date: dt.datetime | None
    pave: AlgorithmPrediction | None
    fm: AlgorithmPrediction | None
    v2: AlgorithmPrediction | None

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
