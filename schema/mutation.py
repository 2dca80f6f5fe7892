"""The writer paths as mutations. Each needs the `writer` role, checks its whole input
before writing, answers with what it wrote, and updates the request's loaders so that a
later read in the same request sees the write."""

from __future__ import annotations

import strawberry

from loaders import balance_alert, keys
from loaders.codec import Item
from loaders.keys import ItemKey
from loaders.lock import LockClient
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


def lock_client(info: Info) -> LockClient:
    context = info.context
    if context.locks is not None:
        return context.locks
    # Without the process's client (a context built by hand) a request gets its own; it
    # excludes others just the same, only without sightings from earlier requests.
    return LockClient(context.dynamo)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="The `payday` row and one PAYDAY_PREDICTION capture event.")
    async def record_payday_prediction(
        self, info: Info, input: RecordPaydayPredictionInput
    ) -> PaydayPrediction | None:
        require_writer(info)
        context = info.context
        recorded = await payday.record_payday_prediction(
            context.dynamo, input.to_command(), context.now
        )
        remember(info, keys.payday(recorded.row.user_id), recorded.row.to_item())
        return PaydayPrediction.from_row(recorded.row)

    @strawberry.mutation(description="The user's `income_verification` row.")
    async def set_income_verification(
        self, info: Info, input: SetIncomeVerificationInput
    ) -> IncomeVerification | None:
        require_writer(info)
        context = info.context
        row = await income_verification.set_income_verification(
            context.dynamo, input.to_command(), context.now
        )
        remember(info, keys.income_verification(row.user_id), row.to_item())
        return IncomeVerification.from_row(row)

    @strawberry.mutation(description="One month's `balance` row.")
    async def record_savings_snapshot(
        self, info: Info, input: RecordSavingsSnapshotInput
    ) -> SavingsMonth | None:
        require_writer(info)
        context = info.context
        row = await savings.record_savings_snapshot(context.dynamo, input.to_command(), context.now)
        remember(info, keys.savings_month(row.user_id, row.month), row.to_item())
        return SavingsMonth.from_row(row)

    @strawberry.mutation(
        description="Section 5: under the user's lock, decide and write the `alert` row "
        "only when SENT."
    )
    async def evaluate_balance_alert(
        self, info: Info, input: EvaluateBalanceAlertInput
    ) -> BalanceAlertEvaluation | None:
        require_writer(info)
        context = info.context
        evaluation = await balance_alert.evaluate_balance_alert(
            context.dynamo, lock_client(info), input.to_command(), context.now
        )
        if evaluation.decision is balance_alert.Decision.SENT and evaluation.alert is not None:
            remember(info, keys.alert(evaluation.alert.user_id), evaluation.alert.to_item())
        return BalanceAlertEvaluation.from_evaluation(evaluation)

    @strawberry.mutation(description="The `pave_label` row REFRESH_INSIGHTS.")
    async def mark_insights_refresh(
        self, info: Info, input: MarkInsightsRefreshInput
    ) -> PaveLabel | None:
        require_writer(info)
        context = info.context
        row = await feeder.mark_insights_refresh(context.dynamo, str(input.user_id), context.now)
        remember(info, keys.pave_label(row.user_id), row.to_item())
        return PaveLabel.from_row(row)

    @strawberry.mutation(
        description="The `last_page` row; never lowers a stored page: a retried or late "
        "write changes nothing and answers with the stored row."
    )
    async def record_last_page(self, info: Info, input: RecordLastPageInput) -> LastPage | None:
        require_writer(info)
        context = info.context
        recorded = await feeder.record_last_page(context.dynamo, input.to_command(), context.now)
        row = recorded.row
        key = keys.last_page(row.user_id, row.pave_request_id)
        remember(info, key, row.to_item() if recorded.written else None)
        return LastPage.from_row(row)

    @strawberry.mutation(description="One `site-incomedetection` row.")
    async def record_income_detection_run(
        self, info: Info, input: RecordIncomeDetectionRunInput
    ) -> IncomeDetectionRun | None:
        require_writer(info)
        context = info.context
        row = await income_detection.record_income_detection_run(
            context.dynamo, input.to_command(), context.now
        )
        remember(info, keys.income_detection_run(row.user_id, row.run_date), row.to_item())
        return IncomeDetectionRun.from_row(row)

    @strawberry.mutation(
        description="The day's FM_PAYDAY_FILTERED_TXNS and FM_PAYDAY_PREDICTED_PAYDAY rows."
    )
    async def record_float_me_v2_capture(
        self, info: Info, input: RecordFloatMeV2CaptureInput
    ) -> FloatMeV2CaptureKeys | None:
        require_writer(info)
        context = info.context
        events = await floatme_capture.record_floatme_v2_capture(
            context.dynamo, input.to_command(), context.now
        )
        return FloatMeV2CaptureKeys.from_capture(events)
