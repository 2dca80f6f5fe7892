"""What the mutations answer beyond the entity types they wrote."""

from __future__ import annotations

import enum

import strawberry

from loaders.balance_alert import Decision, Evaluation
from loaders.capture import CaptureEvent
from loaders.rows.alert import AlertRow
from loaders.writers.floatme_capture import FloatMeV2Capture
from schema.alert import BalanceAlert


@strawberry.enum(
    description="The outcome of a balance-alert evaluation; the checks run in this order and "
    "the first that holds decides."
)
class BalanceAlertDecision(enum.Enum):
    LOCKED = strawberry.enum_value(
        "LOCKED",
        description="Another owner holds the user's balance-alert lock; nothing was written.",
    )
    ALERTS_OFF = strawberry.enum_value(
        "ALERTS_OFF",
        description="The user has no low-balance threshold (alerts are off); nothing was written.",
    )
    ABOVE_THRESHOLD = strawberry.enum_value(
        "ABOVE_THRESHOLD",
        description="The available balance is at or above the threshold; nothing was written.",
    )
    COOLDOWN = strawberry.enum_value(
        "COOLDOWN",
        description="An alert was sent less than 7 days ago; nothing was written.",
    )
    SENT = strawberry.enum_value(
        "SENT", description="An alert is due: the `alert` row was written."
    )


@strawberry.type(description="What `evaluateBalanceAlert` decided, and the alert row.")
class BalanceAlertEvaluation:
    decision: BalanceAlertDecision = strawberry.field(description="The decision.")
    # The row itself (completed as `BalanceAlert`, the type derived from it).
    alert: AlertRow | None = strawberry.field(
        description="SENT: the row written; LOCKED: null; otherwise the stored row, if any.",
        graphql_type=BalanceAlert | None,
    )

    @classmethod
    def from_evaluation(cls, evaluation: Evaluation) -> BalanceAlertEvaluation:
        return cls(decision=BalanceAlertDecision(evaluation.decision.value), alert=evaluation.alert)


@strawberry.type(description="The key of one `site-fmdatacapture` row.")
class CaptureRowKey:
    pk: str = strawberry.field(description="The partition key, `USER#<user_id>`.")
    sk: str = strawberry.field(description="The sort key, `<EVENT_NAME>#<date>`.")

    @classmethod
    def from_event(cls, event: CaptureEvent) -> CaptureRowKey:
        assert event.key.sk is not None
        return cls(pk=event.key.pk, sk=event.key.sk)


@strawberry.type(description="The keys of the two capture rows `recordFloatMeV2Capture` wrote.")
class FloatMeV2CaptureKeys:
    filtered_transactions: CaptureRowKey = strawberry.field(
        description="The day's `FM_PAYDAY_FILTERED_TXNS` row."
    )
    predicted_payday: CaptureRowKey = strawberry.field(
        description="The day's `FM_PAYDAY_PREDICTED_PAYDAY` row."
    )

    @classmethod
    def from_capture(cls, capture: FloatMeV2Capture) -> FloatMeV2CaptureKeys:
        return cls(
            filtered_transactions=CaptureRowKey.from_event(capture.filtered_transactions),
            predicted_payday=CaptureRowKey.from_event(capture.predicted_payday),
        )


# Each GraphQL value is named as its loaders decision's value.
assert {d.value for d in Decision} == {d.name for d in BalanceAlertDecision}
