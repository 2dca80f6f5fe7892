from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.income_detection import DetectedTransaction as DetectedTransactionRow
from loaders.rows.income_detection import IncomeDetectionRunRow, MethodResult


@strawberry.type(description="A transaction a detection method picked as income.")
class DetectedTransaction:
    transaction_id: str | None = strawberry.field(description="The transaction's id.")
    name: str | None = strawberry.field(description="The transaction's name, as the bank shows it.")
    amount: Decimal | None = strawberry.field(description="The transaction's amount, in dollars.")
    date: dt.date | None = strawberry.field(description="The transaction's date.")

    @classmethod
    def from_row(cls, row: DetectedTransactionRow) -> DetectedTransaction:
        return cls(
            transaction_id=row.transaction_id, name=row.name, amount=row.amount, date=row.date
        )


@strawberry.type(description="One detection method's results (its `method_<m>_results` attribute).")
class IncomeDetectionMethodResult:
    method: str = strawberry.field(
        description="The method's name, the `<m>` of `method_<m>_results` (`a`, `b`, … `ml`)."
    )
    transactions: list[DetectedTransaction] = strawberry.field(
        description="The transactions the method detected as income, as stored."
    )

    @classmethod
    def from_row(cls, row: MethodResult) -> IncomeDetectionMethodResult:
        return cls(
            method=row.method,
            transactions=[DetectedTransaction.from_row(t) for t in row.transactions],
        )


@strawberry.type(
    description="One income detection run (a `site-incomedetection` row), deleted 7 days "
    "after `runDate`."
)
class IncomeDetectionRun:
    run_date: dt.datetime = strawberry.field(description="When the run happened (UTC).")
    method_results: list[IncomeDetectionMethodResult] = strawberry.field(
        description="Each detection method's results, one entry per method the run stored."
    )
    ml_enabled: bool | None = strawberry.field(
        description="Whether the machine-learning method was enabled for the run."
    )
    ml_results_used: bool | None = strawberry.field(
        description="Whether the run used the machine-learning method's results."
    )
    ml_prediction_id: str | None = strawberry.field(
        description="The machine-learning prediction's id."
    )
    ml_predictions: list[str] = strawberry.field(
        description="The transaction ids the model predicted as income."
    )
    ml_probabilities: list[Decimal] = strawberry.field(
        description="The model's probability for each of `mlPredictions`, in the same order, "
        "from 0 to 1."
    )

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
