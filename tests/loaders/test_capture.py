from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import Decimal

from loaders import capture
from loaders.codec import to_wire

AT = datetime(2026, 12, 2, 11, 31, 28, 123456, tzinfo=UTC)


def test_payday_prediction_rows_are_one_per_evaluation() -> None:
    event = capture.payday_prediction_event(
        "u-1", {"loan_id": "l-9"}, AT, suffix=lambda: "0a1b2c3d"
    )

    assert to_wire(event.to_item()) == {
        "PK": {"S": "USER#u-1"},
        "SK": {"S": "PAYDAY_PREDICTION#2026-12-02T11:31:28.123456Z#0a1b2c3d"},
        "event_name": {"S": "PAYDAY_PREDICTION"},
        "user_id": {"S": "u-1"},
        "created_at": {"S": "2026-12-02T11:31:28.123456Z"},
        "payload": {"M": {"loan_id": {"S": "l-9"}}},
        "ttl": {"N": str(int(AT.timestamp()) + 2 * 86400)},
    }


def test_the_default_suffix_is_eight_random_hex_digits() -> None:
    first = capture.payday_prediction_event("u-1", {}, AT)
    second = capture.payday_prediction_event("u-1", {}, AT)

    assert first.key.sk is not None
    assert re.fullmatch(r"PAYDAY_PREDICTION#2026-12-02T11:31:28\.123456Z#[0-9a-f]{8}", first.key.sk)
    assert first.key != second.key


def test_daily_rows_are_keyed_by_the_day() -> None:
    event = capture.daily_event(
        "u-1",
        capture.FM_PAYDAY_PREDICTED_PAYDAY,
        date(2026, 12, 1),
        {"predicted_payday": "2026-12-04", "confidence": Decimal("0.5")},
        AT.replace(microsecond=0),
    )

    item = to_wire(event.to_item())
    assert item["PK"] == {"S": "USER#u-1"}
    assert item["SK"] == {"S": "FM_PAYDAY_PREDICTED_PAYDAY#2026-12-01"}
    assert item["created_at"] == {"S": "2026-12-02T11:31:28Z"}
    assert item["payload"] == {
        "M": {"predicted_payday": {"S": "2026-12-04"}, "confidence": {"N": "0.5"}}
    }
