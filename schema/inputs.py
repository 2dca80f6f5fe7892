"""The mutations' input types: `userId` and the camelCase of the attributes each writes,
derived from the rows' declarations (`schema.declared.input_of`); a mutation passes its
input's values to the row's `written`, which checks them (BAD_USER_INPUT). The FloatMe
capture, no entity's row, keeps a hand-written input and command."""

from __future__ import annotations

import datetime as dt

import strawberry

from loaders.rows.alert import AlertRow
from loaders.rows.balance import AccountBalance as AccountBalanceRow
from loaders.rows.balance import BalanceRow
from loaders.rows.feeder import LastPageRow, PaveLabelRow
from loaders.rows.income_detection import DetectedTransaction, IncomeDetectionRunRow, MethodResult
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.payday import AlgorithmPrediction as AlgorithmPredictionRow
from loaders.rows.payday import PaydayRow
from loaders.writers.floatme_capture import FloatMeV2CaptureCommand
from schema.declared import input_of, input_values


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


@input_of(
    DetectedTransaction, description="A transaction a detection method or FloatMe V2 selected."
)
class TransactionInput:
    pass


@input_of(MethodResult, description="One detection method's results.", nested=(TransactionInput,))
class MethodResultInput:
    pass


@input_of(
    IncomeDetectionRunRow,
    description="One income detection run. The gateway sets the TTL (7 days).",
    nested=(MethodResultInput,),
)
class RecordIncomeDetectionRunInput:
    pass


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
            filtered_transactions=tuple(map(input_values, self.filtered_transactions)),
            predicted_payday=self.predicted_payday,
            frequency=self.frequency,
            date=self.date,
        )
