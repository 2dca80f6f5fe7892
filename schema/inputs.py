"""The mutations' input types: `userId` and the camelCase of the attributes each writes.

Each turns itself into its writer's command; the writer checks it (BAD_USER_INPUT)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import strawberry

from loaders.balance_alert import BalanceAlertCommand
from loaders.writers.common import TransactionCommand
from loaders.writers.feeder import LastPageCommand
from loaders.writers.floatme_capture import FloatMeV2CaptureCommand
from loaders.writers.income_detection import IncomeDetectionRunCommand, MethodResultCommand
from loaders.writers.income_verification import IncomeVerificationCommand
from loaders.writers.payday import PaydayPredictionCommand, PredictionCommand
from loaders.writers.savings import AccountCommand, SavingsSnapshotCommand


@strawberry.input(description="One payday algorithm's full prediction.")
class AlgorithmPredictionInput:
    payday: dt.date
    frequency: str
    instant_collection_date: dt.date | None = None
    standard_collection_date: dt.date | None = None
    extended_collection_date: dt.date | None = None

    def to_command(self) -> PredictionCommand:
        return PredictionCommand(
            payday=self.payday,
            frequency=self.frequency,
            instant_collection_date=self.instant_collection_date,
            standard_collection_date=self.standard_collection_date,
            extended_collection_date=self.extended_collection_date,
        )


def _prediction(value: AlgorithmPredictionInput | None) -> PredictionCommand | None:
    return value.to_command() if value is not None else None


@strawberry.input
class RecordPaydayPredictionInput:
    user_id: strawberry.ID
    loan_id: str
    detection_used: str = strawberry.field(
        description="PAVE_PAYDAY_CALCULATION, FLOATME_V2_PAYDAY_CALCULATION or "
        "FLOATME_PAYDAY_CALCULATION; that algorithm's prediction must be given."
    )
    next_date: dt.date
    source: str
    frequency: str
    pave: AlgorithmPredictionInput | None = None
    fm: AlgorithmPredictionInput | None = None
    v2: AlgorithmPredictionInput | None = None
    pave_error: str | None = strawberry.field(
        default=None, description="Why the Pave algorithm gave no prediction (capture only)."
    )
    fm_error: str | None = strawberry.field(default=None, description="As `paveError`.")
    v2_error: str | None = strawberry.field(default=None, description="As `paveError`.")

    def to_command(self) -> PaydayPredictionCommand:
        return PaydayPredictionCommand(
            user_id=str(self.user_id),
            loan_id=self.loan_id,
            detection_used=self.detection_used,
            next_date=self.next_date,
            source=self.source,
            frequency=self.frequency,
            pave=_prediction(self.pave),
            fm=_prediction(self.fm),
            v2=_prediction(self.v2),
            pave_error=self.pave_error,
            fm_error=self.fm_error,
            v2_error=self.v2_error,
        )


@strawberry.input
class SetIncomeVerificationInput:
    user_id: strawberry.ID
    txn_name: str
    txn_id: str
    amount_in_cents: int
    pay_frequency: str
    institution_id: str
    verification_status: str = strawberry.field(description="pending, approved or denied")
    is_valid: bool
    notes: list[str] = strawberry.field(default_factory=list)
    verification_source: str = strawberry.field(default="", description='ollie, mx or ""')

    def to_command(self) -> IncomeVerificationCommand:
        return IncomeVerificationCommand(
            user_id=str(self.user_id),
            txn_name=self.txn_name,
            txn_id=self.txn_id,
            amount_in_cents=self.amount_in_cents,
            pay_frequency=self.pay_frequency,
            institution_id=self.institution_id,
            verification_status=self.verification_status,
            is_valid=self.is_valid,
            notes=tuple(self.notes),
            verification_source=self.verification_source,
        )


@strawberry.input
class AccountBalanceInput:
    account_id: str
    amount: Decimal
    subtype: str


@strawberry.input
class RecordSavingsSnapshotInput:
    user_id: strawberry.ID
    accounts: list[AccountBalanceInput]
    month: str | None = strawberry.field(
        default=None, description="`YYYY-MM`; default: the current UTC month."
    )
    total_available: Decimal | None = strawberry.field(
        default=None, description="Default: the sum of the accounts' amounts."
    )

    def to_command(self) -> SavingsSnapshotCommand:
        return SavingsSnapshotCommand(
            user_id=str(self.user_id),
            accounts=tuple(
                AccountCommand(account_id=a.account_id, amount=a.amount, subtype=a.subtype)
                for a in self.accounts
            ),
            month=self.month,
            total_available=self.total_available,
        )


@strawberry.input
class EvaluateBalanceAlertInput:
    user_id: strawberry.ID
    available_balance: Decimal
    current_balance: Decimal

    def to_command(self) -> BalanceAlertCommand:
        return BalanceAlertCommand(
            user_id=str(self.user_id),
            available_balance=self.available_balance,
            current_balance=self.current_balance,
        )


@strawberry.input
class MarkInsightsRefreshInput:
    user_id: strawberry.ID


@strawberry.input
class RecordLastPageInput:
    user_id: strawberry.ID
    pave_request_id: str
    page: int

    def to_command(self) -> LastPageCommand:
        return LastPageCommand(
            user_id=str(self.user_id), pave_request_id=self.pave_request_id, page=self.page
        )


@strawberry.input(description="A transaction a detection method or FloatMe V2 selected.")
class TransactionInput:
    transaction_id: str
    name: str
    amount: Decimal
    date: dt.date

    def to_command(self) -> TransactionCommand:
        return TransactionCommand(
            transaction_id=self.transaction_id, name=self.name, amount=self.amount, date=self.date
        )


@strawberry.input
class MethodResultInput:
    method: str = strawberry.field(description="Stored as `method_<method>_results`.")
    transactions: list[TransactionInput]


@strawberry.input
class RecordIncomeDetectionRunInput:
    user_id: strawberry.ID
    method_results: list[MethodResultInput]
    run_date: dt.datetime | None = strawberry.field(default=None, description="Default: now.")
    ml_enabled: bool = False
    ml_results_used: bool = False
    ml_prediction_id: str | None = None
    ml_predictions: list[str] = strawberry.field(default_factory=list)
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


@strawberry.input
class RecordFloatMeV2CaptureInput:
    user_id: strawberry.ID
    filtered_transactions: list[TransactionInput]
    predicted_payday: dt.date
    frequency: str
    date: dt.date | None = strawberry.field(default=None, description="Default: today (UTC).")

    def to_command(self) -> FloatMeV2CaptureCommand:
        return FloatMeV2CaptureCommand(
            user_id=str(self.user_id),
            filtered_transactions=tuple(t.to_command() for t in self.filtered_transactions),
            predicted_payday=self.predicted_payday,
            frequency=self.frequency,
            date=self.date,
        )
