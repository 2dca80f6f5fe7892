"""recordFloatMeV2Capture: the day's `FM_PAYDAY_FILTERED_TXNS` and
`FM_PAYDAY_PREDICTED_PAYDAY` capture rows (one of each per user per day)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from loaders import capture, validation
from loaders.capture import CaptureEvent
from loaders.errors import BadUserInput
from loaders.transactions import Writes
from loaders.writers.common import validated_transactions

__all__ = [
    "FloatMeV2Capture",
    "FloatMeV2CaptureCommand",
    "floatme_v2_events",
    "record_floatme_v2_capture",
]


@dataclass(frozen=True, slots=True)
class FloatMeV2CaptureCommand:
    user_id: str
    #: Each transaction's input values, by field name.
    filtered_transactions: Sequence[Mapping[str, Any]]
    predicted_payday: date
    frequency: str
    #: None: today (UTC).
    date: date | None = None


@dataclass(frozen=True, slots=True)
class FloatMeV2Capture:
    filtered_transactions: CaptureEvent
    predicted_payday: CaptureEvent


def floatme_v2_events(command: FloatMeV2CaptureCommand, now: datetime) -> FloatMeV2Capture:
    user_id = validation.identifier("userId", command.user_id)
    day = now.date() if command.date is None else command.date
    if day > now.date():
        raise BadUserInput("date", "must not be after today (UTC)")
    transactions = validated_transactions(
        "filteredTransactions", command.filtered_transactions, now
    )
    frequency = validation.non_empty_text("frequency", command.frequency)
    filtered = capture.daily_event(
        user_id,
        capture.FM_PAYDAY_FILTERED_TXNS,
        day,
        {"transactions": [transaction.to_map() for transaction in transactions]},
        now,
    )
    predicted = capture.daily_event(
        user_id,
        capture.FM_PAYDAY_PREDICTED_PAYDAY,
        day,
        {"predicted_payday": command.predicted_payday.isoformat(), "frequency": frequency},
        now,
    )
    return FloatMeV2Capture(filtered, predicted)


def record_floatme_v2_capture(
    writes: Writes, command: FloatMeV2CaptureCommand, now: datetime
) -> FloatMeV2Capture:
    """Both rows, in one transaction."""
    events = floatme_v2_events(command, now)
    writes.put(events.filtered_transactions.key.table, events.filtered_transactions.to_item())
    writes.put(events.predicted_payday.key.table, events.predicted_payday.to_item())
    return events
