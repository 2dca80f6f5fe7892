"""recordPaydayPrediction: the `payday` row and one `PAYDAY_PREDICTION` capture event."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from loaders import capture, validation
from loaders.capture import CaptureEvent
from loaders.errors import BadUserInput
from loaders.rows.payday import DETECTION_METHODS, PAYDAY, AlgorithmPrediction, PaydayRow
from loaders.transactions import Writes

__all__ = [
    "FLOATME",
    "FLOATME_V2",
    "PAVE",
    "PREDICTION_OF_METHOD",
    "PaydayPredictionCommand",
    "PredictionCommand",
    "RecordedPayday",
    "payday_row",
    "prediction_payload",
    "record_payday_prediction",
]

PAVE = "PAVE_PAYDAY_CALCULATION"
FLOATME_V2 = "FLOATME_V2_PAYDAY_CALCULATION"
FLOATME = "FLOATME_PAYDAY_CALCULATION"
#: Which prediction each detection method's answer comes from.
PREDICTION_OF_METHOD = {PAVE: "pave", FLOATME_V2: "v2", FLOATME: "fm"}


@dataclass(frozen=True, slots=True)
class PredictionCommand:
    payday: date
    frequency: str
    instant_collection_date: date | None = None
    standard_collection_date: date | None = None
    extended_collection_date: date | None = None

    def validated(self, field: str) -> AlgorithmPrediction:
        return AlgorithmPrediction(
            payday=self.payday,
            frequency=validation.non_empty_text(f"{field}.frequency", self.frequency),
            instant_collection_date=self.instant_collection_date,
            standard_collection_date=self.standard_collection_date,
            extended_collection_date=self.extended_collection_date,
        )


@dataclass(frozen=True, slots=True)
class PaydayPredictionCommand:
    user_id: str
    loan_id: str
    detection_used: str
    next_date: date
    source: str
    frequency: str
    pave: PredictionCommand | None
    fm: PredictionCommand | None
    v2: PredictionCommand | None
    pave_error: str | None = None
    fm_error: str | None = None
    v2_error: str | None = None


@dataclass(frozen=True, slots=True)
class RecordedPayday:
    row: PaydayRow
    event: CaptureEvent


def payday_row(command: PaydayPredictionCommand, now: datetime) -> PaydayRow:
    """The row the command writes, after every check (BadUserInput names the field)."""
    detection_used = validation.one_of("detectionUsed", command.detection_used, DETECTION_METHODS)
    predictions = {
        name: prediction.validated(name) if prediction is not None else None
        for name, prediction in (("pave", command.pave), ("fm", command.fm), ("v2", command.v2))
    }
    chosen = PREDICTION_OF_METHOD[detection_used]
    if predictions[chosen] is None:
        raise BadUserInput(chosen, f"must be given: detectionUsed is {detection_used}")
    for name, error in _errors(command).items():
        if error is not None:
            validation.text(f"{name}Error", error)
    return PaydayRow(
        user_id=validation.identifier("userId", command.user_id),
        prediction_date=now.date(),
        detection_used=detection_used,
        next_date=command.next_date,
        source=validation.text("source", command.source),
        frequency=validation.non_empty_text("frequency", command.frequency),
        loan_id=validation.identifier("loanId", command.loan_id),
        created_date=now,
        pave=predictions["pave"],
        fm=predictions["fm"],
        v2=predictions["v2"],
        ttl=PAYDAY.expires(now),
    )


def prediction_payload(row: PaydayRow, command: PaydayPredictionCommand) -> dict[str, Any]:
    """The capture event's payload: every algorithm's prediction and error, and the choice.

    `from_cache` is false: a recorded prediction is a fresh computation, never a cache hit."""
    payload: dict[str, Any] = {
        "prediction_date": row.prediction_date.isoformat() if row.prediction_date else None,
        "loan_id": row.loan_id,
        "detection_used": row.detection_used,
        "used_v2": row.detection_used == FLOATME_V2,
        "used_pave_v2": row.detection_used == PAVE,
        "from_cache": False,
        "next_date": row.next_date.isoformat() if row.next_date else None,
        "source": row.source,
        "frequency": row.frequency,
    }
    errors = _errors(command)
    for name, prediction in (("pave", row.pave), ("fm", row.fm), ("v2", row.v2)):
        payload[name] = prediction.to_map() if prediction is not None else None
        payload[f"{name}_error"] = errors[name]
    return payload


def record_payday_prediction(
    writes: Writes,
    command: PaydayPredictionCommand,
    now: datetime,
    *,
    suffix: Callable[[], str] = capture.random_suffix,
) -> RecordedPayday:
    row = payday_row(command, now)
    event = capture.payday_prediction_event(
        row.user_id, prediction_payload(row, command), now, suffix=suffix
    )
    # One transaction: a capture event never describes a prediction that was not stored,
    # nor is a prediction stored without its event.
    writes.put(PAYDAY.table, row.to_item())
    writes.put(event.key.table, event.to_item())
    return RecordedPayday(row, event)


def _errors(command: PaydayPredictionCommand) -> dict[str, str | None]:
    return {"pave": command.pave_error, "fm": command.fm_error, "v2": command.v2_error}
