"""The writer paths as mutations. Each needs the `writer` role, checks its whole input
before writing, answers with what it wrote, and updates the request's loaders so that a
later read in the same request sees the write."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, TypeAlias

import strawberry

from loaders import balance_alert, keys
from loaders.codec import Item
from loaders.keys import ItemKey
from loaders.lock import LockClient
from loaders.tables import Table
from loaders.writers import (
    feeder,
    floatme_capture,
    income_detection,
    income_verification,
    payday,
    savings,
)
from schema.context import Info
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


def remember(info: Info, key: ItemKey, item: Item | None) -> None:
    """Later reads of this request see what was written under `key`."""
    info.context.reads.wrote(key, item)


@asynccontextmanager
async def writing(info: Info, *partitions: tuple[Table, str]) -> AsyncIterator[None]:
    """Once the write is made, or has failed (it may have been applied; a condition that
    failed shows the table differs from what was read): its partitions are dropped from
    this replica's cache and published on the change feed, before the mutation answers."""
    try:
        yield
    finally:
        await info.context.changes.wrote(partitions)


def _partition(key: ItemKey) -> tuple[Table, str]:
    return key.table, key.pk


def lock_client(info: Info) -> LockClient:
    context = info.context
    if context.locks is not None:
        return context.locks
    # Without the process's client (a context built by hand) a request gets its own; it
    # excludes others just the same, only without sightings from earlier requests.
    return LockClient(context.dynamo)


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
        "`PAYDAY_PREDICTION` capture event."
    )
    async def record_payday_prediction(
        self, info: Info, input: PaydayPredictionArgument
    ) -> PaydayPrediction | None:
        require_writer(info)
        context = info.context
        async with writing(info, _partition(keys.payday(str(input.user_id)))):
            recorded = await payday.record_payday_prediction(
                context.dynamo, input.to_command(), context.now
            )
        remember(info, keys.payday(recorded.row.user_id), recorded.row.to_item())
        return PaydayPrediction.from_row(recorded.row)

    @strawberry.mutation(
        description="Stores the user's income verification (the `income_verification` row, "
        "replacing the previous one); `lastUpdated` is now."
    )
    async def set_income_verification(
        self, info: Info, input: IncomeVerificationArgument
    ) -> IncomeVerification | None:
        require_writer(info)
        context = info.context
        async with writing(info, keys.user_partition(str(input.user_id))):
            row = await income_verification.set_income_verification(
                context.dynamo, input.to_command(), context.now
            )
        remember(info, keys.income_verification(row.user_id), row.to_item())
        return IncomeVerification.from_row(row)

    @strawberry.mutation(
        description="Stores one month's savings snapshot (the `balance` row of that month, "
        "replacing it; kept a year)."
    )
    async def record_savings_snapshot(
        self, info: Info, input: SavingsSnapshotArgument
    ) -> SavingsMonth | None:
        require_writer(info)
        context = info.context
        async with writing(info, keys.user_partition(str(input.user_id))):
            row = await savings.record_savings_snapshot(
                context.dynamo, input.to_command(), context.now
            )
        remember(info, keys.savings_month(row.user_id, row.month), row.to_item())
        return SavingsMonth.from_row(row)

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
        async with writing(info, keys.user_partition(str(input.user_id))):
            evaluation = await balance_alert.evaluate_balance_alert(
                context.dynamo, lock_client(info), input.to_command(), context.now
            )
        if evaluation.decision is balance_alert.Decision.SENT and evaluation.alert is not None:
            remember(info, keys.alert(evaluation.alert.user_id), evaluation.alert.to_item())
        return BalanceAlertEvaluation.from_evaluation(evaluation)

    @strawberry.mutation(
        description="Labels the user `REFRESH_INSIGHTS` (the `pave_label` row), asking for "
        "their insights to be mined again."
    )
    async def mark_insights_refresh(
        self, info: Info, input: InsightsRefreshArgument
    ) -> PaveLabel | None:
        require_writer(info)
        context = info.context
        async with writing(info, _partition(keys.pave_label(str(input.user_id)))):
            row = await feeder.mark_insights_refresh(
                context.dynamo, str(input.user_id), context.now
            )
        remember(info, keys.pave_label(row.user_id), row.to_item())
        return PaveLabel.from_row(row)

    @strawberry.mutation(
        description="Records the last page fed for a Pave request (the `last_page` row, kept "
        "5 days); never lowers a stored page: a retried or late write changes nothing and "
        "answers with the stored row."
    )
    async def record_last_page(self, info: Info, input: LastPageArgument) -> LastPage | None:
        require_writer(info)
        context = info.context
        async with writing(info, keys.user_partition(str(input.user_id))):
            recorded = await feeder.record_last_page(
                context.dynamo, input.to_command(), context.now
            )
        row = recorded.row
        key = keys.last_page(row.user_id, row.pave_request_id)
        remember(info, key, row.to_item() if recorded.written else None)
        return LastPage.from_row(row)

    @strawberry.mutation(
        description="Stores one income detection run (a `site-incomedetection` row, kept 7 days)."
    )
    async def record_income_detection_run(
        self, info: Info, input: IncomeDetectionRunArgument
    ) -> IncomeDetectionRun | None:
        require_writer(info)
        context = info.context
        async with writing(info, keys.income_detection_partition(str(input.user_id))):
            row = await income_detection.record_income_detection_run(
                context.dynamo, input.to_command(), context.now
            )
        remember(info, keys.income_detection_run(row.user_id, row.run_date), row.to_item())
        return IncomeDetectionRun.from_row(row)

    @strawberry.mutation(
        description="Writes the day's `FM_PAYDAY_FILTERED_TXNS` and "
        "`FM_PAYDAY_PREDICTED_PAYDAY` capture rows (one of each per user per UTC day, a "
        "later write that day replacing them; kept 2 days)."
    )
    async def record_float_me_v2_capture(
        self, info: Info, input: FloatMeV2CaptureArgument
    ) -> FloatMeV2CaptureKeys | None:
        require_writer(info)
        context = info.context
        events = await floatme_capture.record_floatme_v2_capture(
            context.dynamo, input.to_command(), context.now
        )
        return FloatMeV2CaptureKeys.from_capture(events)
