"""The writer paths as mutations. Each needs the `writer` role, checks its whole input
before writing, answers with what it wrote, and updates the request's loaders so that a
later read in the same request sees the write."""

from __future__ import annotations

from typing import Annotated, TypeAlias, TypeVar

import strawberry

from loaders import balance_alert
from loaders.lock import LockClient
from loaders.record import Record
from loaders.rows.balance import BalanceRow
from loaders.rows.feeder import LastPageRow, PaveLabelRow
from loaders.rows.income_detection import IncomeDetectionRunRow
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.payday import PaydayRow
from loaders.transactions import Writes
from loaders.writers import feeder, floatme_capture, payday
from loaders.writers.common import put_written
from schema.context import Info
from schema.declared import input_values
from schema.feeder import LastPage, PaveLabel
from schema.income_detection import IncomeDetectionRun
from schema.income_verification import IncomeVerification
from schema.inputs import (
    EvaluateBalanceAlertInput,
    MarkInsightsRefreshInput,
    RecordFloatMeV2CaptureInput,
    RecordIncomeDetectionRunInput,
    RecordLastPageInput,
    RecordPaydayPredictionInput,
    RecordSavingsSnapshotInput,
    SetIncomeVerificationInput,
)
from schema.payday import PaydayPrediction
from schema.payloads import BalanceAlertEvaluation, FloatMeV2CaptureKeys
from schema.permissions import require_writer
from schema.savings import SavingsMonth


def remember(info: Info, row: Record, written: bool = True) -> None:
    """Later reads of this request see `row` (or only that its key was written to)."""
    info.context.reads.wrote(row.item_key(), row.to_item() if written else None)


def lock_client(info: Info) -> LockClient:
    context = info.context
    if context.locks is not None:
        # The process's client (its sightings shared), its calls the request's.
        return context.locks.bound(context.dynamo)
    # Without the process's client (a context built by hand) a request gets its own; it
    # excludes others just the same, only without sightings from earlier requests.
    return LockClient(context.dynamo)


RowT = TypeVar("RowT", bound=Record)


async def _put_row(info: Info, input: object, declared: type[RowT]) -> RowT:
    """The mutations that store their input as one declared row: the writer's check, the
    row staged in the request's write session, and its `key` remembered for later reads."""
    require_writer(info)
    values, now = input_values(input), info.context.now

    async def stage(writes: Writes) -> RowT:
        return put_written(writes, declared, values, now)

    row = await info.context.write_session().run(str(info.path.key), stage)
    remember(info, row)
    return row


def _input(description: str) -> object:
    return strawberry.argument(
        description=f"{description}; checked whole before anything is written (BAD_USER_INPUT)."
    )


PaydayPredictionArgument: TypeAlias = Annotated[
    RecordPaydayPredictionInput, _input("The prediction to store")
]
IncomeVerificationArgument: TypeAlias = Annotated[
    SetIncomeVerificationInput, _input("The verification to store")
]
SavingsSnapshotArgument: TypeAlias = Annotated[
    RecordSavingsSnapshotInput, _input("The month's snapshot to store")
]
BalanceAlertArgument: TypeAlias = Annotated[
    EvaluateBalanceAlertInput, _input("The user and their balances now")
]
InsightsRefreshArgument: TypeAlias = Annotated[
    MarkInsightsRefreshInput, _input("The user to label")
]
LastPageArgument: TypeAlias = Annotated[RecordLastPageInput, _input("The page fed")]
IncomeDetectionRunArgument: TypeAlias = Annotated[
    RecordIncomeDetectionRunInput, _input("The run to store")
]
FloatMeV2CaptureArgument: TypeAlias = Annotated[
    RecordFloatMeV2CaptureInput, _input("The day's FloatMe V2 results")
]


@strawberry.type(
    description="The writer paths. Each needs a token with the `writer` role (else "
    "FORBIDDEN, and nothing is read or written), sets the rows' own times from the gateway's "
    "clock, and answers with what it wrote."
)
class Mutation:
    @strawberry.mutation(
        description="Stores the user's payday prediction (the `payday` row, replacing the "
        "previous one, dated today in UTC) and records the evaluation as a "
        "`PAYDAY_PREDICTION` capture event.",
        graphql_type=PaydayPrediction | None,
    )
    async def record_payday_prediction(
        self, info: Info, input: PaydayPredictionArgument
    ) -> PaydayRow | None:
        require_writer(info)
        values, now = input_values(input), info.context.now

        async def stage(writes: Writes) -> payday.RecordedPayday:
            return payday.record_payday_prediction(writes, values, now)

        recorded = await info.context.write_session().run(str(info.path.key), stage)
        remember(info, recorded.row)
        return recorded.row

    @strawberry.mutation(
        description="Stores the user's income verification (the `income_verification` row, "
        "replacing the previous one); `lastUpdated` is now.",
        graphql_type=IncomeVerification | None,
    )
    async def set_income_verification(
        self, info: Info, input: IncomeVerificationArgument
    ) -> IncomeVerificationRow | None:
        return await _put_row(info, input, IncomeVerificationRow)

    @strawberry.mutation(
        description="Stores one month's savings snapshot (the `balance` row of that month, "
        "replacing it; kept a year).",
        graphql_type=SavingsMonth | None,
    )
    async def record_savings_snapshot(
        self, info: Info, input: SavingsSnapshotArgument
    ) -> BalanceRow | None:
        return await _put_row(info, input, BalanceRow)

    @strawberry.mutation(
        description="Decides, under the user's balance-alert lock (shared with the Go "
        "services), whether a low-balance alert is due against the threshold in "
        "`user-balance-settings`, and writes the `alert` row only when it is (SENT)."
    )
    async def evaluate_balance_alert(
        self, info: Info, input: BalanceAlertArgument
    ) -> BalanceAlertEvaluation | None:
        require_writer(info)
        context = info.context
        values, locks, session = input_values(input), lock_client(info), context.write_session()

        async def stage(writes: Writes) -> balance_alert.Evaluation:
            return await balance_alert.evaluate_balance_alert(
                context.dynamo, locks, values, context.now, writes
            )

        evaluation = await session.run(str(info.path.key), stage)
        if evaluation.decision is balance_alert.Decision.LOCKED:
            # Another holder's decision is pending: a retry must run afresh, not replay this.
            session.unrecordable = "LOCKED"
        if evaluation.decision is balance_alert.Decision.SENT and evaluation.alert is not None:
            remember(info, evaluation.alert)
        return BalanceAlertEvaluation.from_evaluation(evaluation)

    @strawberry.mutation(
        description="Labels the user `REFRESH_INSIGHTS` (the `pave_label` row), asking for "
        "their insights to be mined again.",
        graphql_type=PaveLabel | None,
    )
    async def mark_insights_refresh(
        self, info: Info, input: InsightsRefreshArgument
    ) -> PaveLabelRow | None:
        return await _put_row(info, input, PaveLabelRow)

    @strawberry.mutation(
        description="Records the last page fed for a Pave request (the `last_page` row, kept "
        "5 days); never lowers a stored page: a retried or late write changes nothing and "
        "answers with the stored row.",
        graphql_type=LastPage | None,
    )
    async def record_last_page(self, info: Info, input: LastPageArgument) -> LastPageRow | None:
        require_writer(info)
        context = info.context
        values = input_values(input)

        async def stage(writes: Writes) -> feeder.RecordedLastPage:
            return await feeder.record_last_page(context.dynamo, writes, values, context.now)

        recorded = await context.write_session().run(str(info.path.key), stage)
        remember(info, recorded.row, recorded.written)
        return recorded.row

    @strawberry.mutation(
        description="Stores one income detection run (a `site-incomedetection` row, kept 7 days).",
        graphql_type=IncomeDetectionRun | None,
    )
    async def record_income_detection_run(
        self, info: Info, input: IncomeDetectionRunArgument
    ) -> IncomeDetectionRunRow | None:
        return await _put_row(info, input, IncomeDetectionRunRow)

    @strawberry.mutation(
        description="Writes the day's `FM_PAYDAY_FILTERED_TXNS` and "
        "`FM_PAYDAY_PREDICTED_PAYDAY` capture rows (one of each per user per UTC day, a "
        "later write that day replacing them; kept 2 days)."
    )
    async def record_float_me_v2_capture(
        self, info: Info, input: FloatMeV2CaptureArgument
    ) -> FloatMeV2CaptureKeys | None:
        require_writer(info)
        command, now = input.to_command(), info.context.now

        async def stage(writes: Writes) -> floatme_capture.FloatMeV2Capture:
            return floatme_capture.record_floatme_v2_capture(writes, command, now)

        events = await info.context.write_session().run(str(info.path.key), stage)
        return FloatMeV2CaptureKeys.from_capture(events)
