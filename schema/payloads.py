"""What the mutations answer beyond the entity types they wrote."""

from __future__ import annotations

import enum

import strawberry

from loaders.balance_alert import Decision, Evaluation
from loaders.capture import CaptureEvent
from loaders.writers.floatme_capture import FloatMeV2Capture
from schema.alert import BalanceAlert


@strawberry.enum(description="The outcome of a balance-alert evaluation, in the order decided.")
class BalanceAlertDecision(enum.Enum):
    LOCKED = "LOCKED"
    ALERTS_OFF = "ALERTS_OFF"
    ABOVE_THRESHOLD = "ABOVE_THRESHOLD"
    COOLDOWN = "COOLDOWN"
    SENT = "SENT"


@strawberry.type
class BalanceAlertEvaluation:
    decision: BalanceAlertDecision
    alert: BalanceAlert | None = strawberry.field(
        description="SENT: the row written; LOCKED: null; otherwise the stored row, if any."
    )

    @classmethod
    def from_evaluation(cls, evaluation: Evaluation) -> BalanceAlertEvaluation:
        return cls(
            decision=BalanceAlertDecision(evaluation.decision.value),
            alert=BalanceAlert.from_row(evaluation.alert) if evaluation.alert else None,
        )


@strawberry.type(description="The key of one `site-fmdatacapture` row.")
class CaptureRowKey:
    pk: str
    sk: str

    @classmethod
    def from_event(cls, event: CaptureEvent) -> CaptureRowKey:
        assert event.key.sk is not None
        return cls(pk=event.key.pk, sk=event.key.sk)


@strawberry.type
class FloatMeV2CaptureKeys:
    filtered_transactions: CaptureRowKey
    predicted_payday: CaptureRowKey

    @classmethod
    def from_capture(cls, capture: FloatMeV2Capture) -> FloatMeV2CaptureKeys:
        return cls(
            filtered_transactions=CaptureRowKey.from_event(capture.filtered_transactions),
            predicted_payday=CaptureRowKey.from_event(capture.predicted_payday),
        )


assert {d.value for d in Decision} == {d.value for d in BalanceAlertDecision}
