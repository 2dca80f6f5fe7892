from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.income_detection import DetectedTransaction as DetectedTransactionRow
from loaders.rows.income_detection import IncomeDetectionRunRow, MethodResult


@strawberry.type
class DetectedTransaction:
    transaction_id: str | None
    name: str | None
    amount: Decimal | None
    date: dt.date | None

    @classmethod
    def from_row(cls, row: DetectedTransactionRow) -> DetectedTransaction:
        return cls(
            transaction_id=row.transaction_id, name=row.name, amount=row.amount, date=row.date
        )


@strawberry.type(description="One detection method's results (`method_<m>_results`).")
class IncomeDetectionMethodResult:
    method: str
    transactions: list[DetectedTransaction]

    @classmethod
    def from_row(cls, row: MethodResult) -> IncomeDetectionMethodResult:
        return cls(
            method=row.method,
            transactions=[DetectedTransaction.from_row(t) for t in row.transactions],
        )


@strawberry.type
class IncomeDetectionRun:
    run_date: dt.datetime
    method_results: list[IncomeDetectionMethodResult]
    ml_enabled: bool | None
    ml_results_used: bool | None
    ml_prediction_id: str | None
    ml_predictions: list[str]
    ml_probabilities: list[Decimal]

    @classmethod
    def from_row(cls, row: IncomeDetectionRunRow) -> IncomeDetectionRun:
        return cls(
            run_date=row.run_date,
            method_results=[IncomeDetectionMethodResult.from_row(r) for r in row.method_results],
            ml_enabled=row.ml_enabled,
            ml_results_used=row.ml_results_used,
            ml_prediction_id=row.ml_prediction_id,
            ml_predictions=list(row.ml_predictions),
            ml_probabilities=list(row.ml_probabilities),
        )
