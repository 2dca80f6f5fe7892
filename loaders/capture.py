"""The layout of `site-fmdatacapture` rows: the stand-in for the shared datacapture client.

Every row is `PK` `USER#<user_id>`, `SK` `<EVENT_NAME>#<suffix>`, `event_name`, `user_id`,
`created_at` (instant), `payload` (Map) and a `ttl` two days after `created_at`. The two
daily FloatMe V2 events use the UTC date as the suffix, so a later write that day replaces
the row; `PAYDAY_PREDICTION` uses `<instant with microseconds>#<8 random hex digits>`, one
row per evaluation.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from loaders.codec import Item, format_instant
from loaders.entity import Entity, TtlRule, entity
from loaders.keys import ItemKey
from loaders.table import Table

__all__ = [
    "CAPTURE_DAILY_EVENT",
    "CAPTURE_EVALUATION_EVENT",
    "FM_PAYDAY_FILTERED_TXNS",
    "FM_PAYDAY_PREDICTED_PAYDAY",
    "PAYDAY_PREDICTION",
    "CaptureEvent",
    "daily_event",
    "payday_prediction_event",
    "random_suffix",
]

PAYDAY_PREDICTION = "PAYDAY_PREDICTION"
FM_PAYDAY_FILTERED_TXNS = "FM_PAYDAY_FILTERED_TXNS"
FM_PAYDAY_PREDICTED_PAYDAY = "FM_PAYDAY_PREDICTED_PAYDAY"


def random_suffix() -> str:
    """8 random hex digits: two evaluations in the same microsecond still get two rows."""
    return secrets.token_hex(4)


@dataclass(frozen=True, slots=True)
class CaptureEvent:
    key: ItemKey
    event_name: str
    user_id: str
    created_at: datetime
    payload: Mapping[str, Any]

    def to_item(self) -> Item:
        assert self.key.sk is not None
        return {
            "PK": self.key.pk,
            "SK": self.key.sk,
            "event_name": self.event_name,
            "user_id": self.user_id,
            "created_at": format_instant(self.created_at),
            "payload": dict(self.payload),
            "ttl": _CAPTURE_TTL.expires(self.created_at),
        }


def payday_prediction_event(
    user_id: str,
    payload: Mapping[str, Any],
    at: datetime,
    *,
    suffix: Callable[[], str] = random_suffix,
) -> CaptureEvent:
    """One row per payday evaluation."""
    key = CAPTURE_EVALUATION_EVENT.key(
        user_id=user_id, event_name=PAYDAY_PREDICTION, at=at, random_hex=suffix()
    )
    return CaptureEvent(key, PAYDAY_PREDICTION, user_id, at, payload)


def daily_event(
    user_id: str, event_name: str, day: date, payload: Mapping[str, Any], at: datetime
) -> CaptureEvent:
    """The user's one row of `event_name` for `day`; a later write that day replaces it."""
    key = CAPTURE_DAILY_EVENT.key(user_id=user_id, event_name=event_name, day=day)
    return CaptureEvent(key, event_name, user_id, at, payload)


_CAPTURE_TTL = TtlRule("created_at", timedelta(days=2))

#: A daily FloatMe V2 event: a later write that day replaces it. Written, never read.
CAPTURE_DAILY_EVENT: Entity[Any] = entity(
    "capture_daily_event",
    Table.DATACAPTURE,
    pk="USER#{user_id}",
    sk="{event_name}#{day:date}",
    ttl=_CAPTURE_TTL,
)

#: One row per payday evaluation. Written, never read.
CAPTURE_EVALUATION_EVENT: Entity[Any] = entity(
    "capture_evaluation_event",
    Table.DATACAPTURE,
    pk="USER#{user_id}",
    sk="{event_name}#{at:instant_us}#{random_hex}",
    ttl=_CAPTURE_TTL,
)
