"""recordPaydayPrediction: the `payday` row and one `PAYDAY_PREDICTION` capture event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from loaders import capture, validation
from loaders.capture import CaptureEvent
from loaders.errors import BadUserInput
from loaders.rows.payday import PAYDAY, PaydayRow
from loaders.transactions import Writes

__all__ = [
    "FLOATME",
    "FLOATME_V2",
    "PAVE",
    "PREDICTION_OF_METHOD",
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
class RecordedPayday:
    row: PaydayRow
    event: CaptureEvent


def payday_row(values: Mapping[str, Any], now: datetime) -> PaydayRow:
    """The row of the input's `values`, after every check (BadUserInput names the field):
    each attribute's (`PaydayRow`), then that the chosen algorithm's prediction is given and
    the errors' lengths (the errors are the capture event's only)."""
    row = PaydayRow.written(values, now)
    chosen = PREDICTION_OF_METHOD[str(row.detection_used)]
    if getattr(row, chosen) is None:
        raise BadUserInput(chosen, f"must be given: detectionUsed is {row.detection_used}")
    for name, error in _errors(values).items():
        if error is not None:
            validation.text(f"{name}Error", error)
    return row


def prediction_payload(row: PaydayRow, values: Mapping[str, Any]) -> dict[str, Any]:
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
    errors = _errors(values)
    for name, prediction in (("pave", row.pave), ("fm", row.fm), ("v2", row.v2)):
        payload[name] = prediction.to_map() if prediction is not None else None
        payload[f"{name}_error"] = errors[name]
    return payload


def record_payday_prediction(
    writes: Writes, values: Mapping[str, Any], now: datetime
) -> RecordedPayday:
    """Stages the row of the input's `values` (by field name) and its capture event."""
    row = payday_row(values, now)
    event = capture.payday_prediction_event(row.user_id, prediction_payload(row, values), now)
    # One transaction: a capture event never describes a prediction that was not stored,
    # nor is a prediction stored without its event.
    writes.put(PAYDAY.table, row.to_item())
    writes.put(event.key.table, event.to_item())
    return RecordedPayday(row, event)


def _errors(values: Mapping[str, Any]) -> dict[str, str | None]:
    return {name: values.get(f"{name}_error") for name in ("pave", "fm", "v2")}
