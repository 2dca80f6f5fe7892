"""The mutations' input types: `userId` and the camelCase of the attributes each writes.

Each turns itself into its writer's command; the writer checks it (BAD_USER_INPUT)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.rows.alert import AlertRow
from loaders.rows.balance import AccountBalance as AccountBalanceRow
from loaders.rows.balance import BalanceRow
from loaders.rows.feeder import LastPageRow, PaveLabelRow
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.payday import AlgorithmPrediction as AlgorithmPredictionRow
from loaders.rows.payday import PaydayRow
from loaders.writers.common import TransactionCommand
from loaders.writers.floatme_capture import FloatMeV2CaptureCommand
from loaders.writers.income_detection import IncomeDetectionRunCommand, MethodResultCommand
from schema.declared import input_of


@input_of(AlgorithmPredictionRow, description="One payday algorithm's full prediction.")
class AlgorithmPredictionInput:
    pass


@input_of(
    PaydayRow,
    description="A payday prediction: the winning algorithm's answer and each algorithm's "
    "own. The gateway sets `predictionDate` (today, UTC), `createdDate` and the TTL.",
    nested=(AlgorithmPredictionInput,),
)
class RecordPaydayPredictionInput:
    pave_error: str | None = strawberry.field(
        default=None,
        description="Why the Pave algorithm gave no prediction; written to the capture event only.",
    )
    fm_error: str | None = strawberry.field(
        default=None, description="As `paveError`, for the FloatMe algorithm."
    )
    v2_error: str | None = strawberry.field(
        default=None, description="As `paveError`, for the FloatMe V2 algorithm."
    )


@input_of(
    IncomeVerificationRow,
    description="An income verification's verdict. The gateway sets `lastUpdated` (now).",
)
class SetIncomeVerificationInput:
    pass


@input_of(AccountBalanceRow, description="One account's balance for a month's savings snapshot.")
class AccountBalanceInput:
    pass


@input_of(
    BalanceRow,
    description="One month's savings snapshot. The gateway sets `updatedDate` (now) and the "
    "TTL (a year later).",
    nested=(AccountBalanceInput,),
)
class RecordSavingsSnapshotInput:
    pass


@input_of(AlertRow, description="A user's balances now, to evaluate a low-balance alert on.")
class EvaluateBalanceAlertInput:
    pass


@input_of(PaveLabelRow, description="The user whose insights should be mined again.")
class MarkInsightsRefreshInput:
    pass


@input_of(
    LastPageRow,
    description="The last page the feeder fed for a Pave request. The gateway sets "
    "`updatedDate` (now) and the TTL (5 days later).",
)
class RecordLastPageInput:
    pass


@strawberry.input(description="A transaction a detection method or FloatMe V2 selected.")
class TransactionInput:
    transaction_id: str = strawberry.field(description="The transaction's id.")
    name: str = strawberry.field(description="The transaction's name, as the bank shows it.")
    amount: Decimal = strawberry.field(description="The transaction's amount, in dollars.")
    date: dt.date = strawberry.field(description="The transaction's date.")

    def to_command(self) -> TransactionCommand:
        return TransactionCommand(
            transaction_id=self.transaction_id, name=self.name, amount=self.amount, date=self.date
        )


@strawberry.input(description="One detection method's results.")
class MethodResultInput:
    method: str = strawberry.field(
        description="The method's name, 1 to 32 lowercase letters or digits, unique in the run; "
        "stored as `method_<method>_results`."
    )
    transactions: list[TransactionInput] = strawberry.field(
        description="The transactions the method detected as income."
    )


@strawberry.input(description="One income detection run. The gateway sets the TTL (7 days).")
class RecordIncomeDetectionRunInput:
    user_id: strawberry.ID = strawberry.field(description="The user the run was for.")
    method_results: list[MethodResultInput] = strawberry.field(
        description="Each detection method's results, one entry per method."
    )
    run_date: dt.datetime | None = strawberry.field(
        default=None, description="When the run happened (RFC 3339); default: now."
    )
    ml_enabled: bool = strawberry.field(
        default=False, description="Whether the machine-learning method was enabled."
    )
    ml_results_used: bool = strawberry.field(
        default=False, description="Whether the machine-learning method's results were used."
    )
    ml_prediction_id: str | None = strawberry.field(
        default=None, description="The machine-learning prediction's id, if any."
    )
    ml_predictions: list[str] = strawberry.field(
        default_factory=list, description="The transaction ids the model predicted as income."
    )
    ml_probabilities: list[Decimal] = strawberry.field(
        default_factory=list, description="One per `mlPredictions` entry, from 0 to 1."
    )

    def to_command(self) -> IncomeDetectionRunCommand:
        return IncomeDetectionRunCommand(
            user_id=str(self.user_id),
            method_results=tuple(
                MethodResultCommand(r.method, tuple(t.to_command() for t in r.transactions))
                for r in self.method_results
            ),
            run_date=self.run_date,
            ml_enabled=self.ml_enabled,
            ml_results_used=self.ml_results_used,
            ml_prediction_id=self.ml_prediction_id,
            ml_predictions=tuple(self.ml_predictions),
            ml_probabilities=tuple(self.ml_probabilities),
        )


@strawberry.input(description="The day's FloatMe V2 results for one user, to capture.")
class RecordFloatMeV2CaptureInput:
    user_id: strawberry.ID = strawberry.field(description="The user the results are for.")
    filtered_transactions: list[TransactionInput] = strawberry.field(
        description="The payroll-candidate transactions FloatMe V2 selected."
    )
    predicted_payday: dt.date = strawberry.field(description="The payday FloatMe V2 predicted.")
    frequency: str = strawberry.field(description="The pay cadence FloatMe V2 predicted.")
    date: dt.date | None = strawberry.field(
        default=None, description="The day the rows are for; default: today (UTC)."
    )

    def to_command(self) -> FloatMeV2CaptureCommand:
        return FloatMeV2CaptureCommand(
            user_id=str(self.user_id),
            filtered_transactions=tuple(t.to_command() for t in self.filtered_transactions),
            predicted_payday=self.predicted_payday,
            frequency=self.frequency,
            date=self.date,
        )
