"""The lock item of `cirello.io/dynamolock` v2, byte for byte: attribute names, version
numbers and owner names as Go makes them, and an item read back into what the client needs."""

from __future__ import annotations

import base64
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from loaders.lock.go_duration import SECOND, parse_go_duration

ATTR_KEY = "key"
ATTR_OWNER_NAME = "ownerName"
ATTR_LEASE_DURATION = "leaseDuration"
ATTR_RECORD_VERSION_NUMBER = "recordVersionNumber"
ATTR_DATA = "data"
ATTR_IS_RELEASED = "isReleased"
IS_RELEASED = "1"

PROTOCOL_ATTRIBUTES = frozenset(
    {
        ATTR_KEY,
        ATTR_OWNER_NAME,
        ATTR_LEASE_DURATION,
        ATTR_RECORD_VERSION_NUMBER,
        ATTR_DATA,
        ATTR_IS_RELEASED,
    }
)

NAMES = {
    "#key": ATTR_KEY,
    "#owner": ATTR_OWNER_NAME,
    "#lease": ATTR_LEASE_DURATION,
    "#rvn": ATTR_RECORD_VERSION_NUMBER,
    "#released": ATTR_IS_RELEASED,
    "#data": ATTR_DATA,
}


@dataclass(frozen=True, slots=True)
class Seen:
    """A lock item as read from the table, and when (monotonic) that version was first seen."""

    owner_name: str
    record_version_number: str
    lease_seconds: float
    released: bool
    data: bytes | None
    additional_attributes: dict[str, Any]
    lookup_time: float

    def expired(self, now: float) -> bool:
        return now - self.lookup_time > self.lease_seconds


def seen_from_item(item: dict[str, Any], lookup_time: float) -> Seen:
    """A `locks` item as GetItem returned it, first seen at `lookup_time` (monotonic)."""
    lease_text = string_value(item.get(ATTR_LEASE_DURATION))
    data = item.get(ATTR_DATA)
    return Seen(
        owner_name=string_value(item.get(ATTR_OWNER_NAME)),
        record_version_number=string_value(item.get(ATTR_RECORD_VERSION_NUMBER)),
        lease_seconds=parse_go_duration(lease_text) / SECOND if lease_text else 0.0,
        # Go counts the attribute's presence, whatever its value.
        released=ATTR_IS_RELEASED in item,
        data=None if data is None or "B" not in data else bytes(data["B"]),
        additional_attributes=additional_attributes(item),
        lookup_time=lookup_time,
    )


def random_name() -> str:
    """Go's randString: 32 random bytes in unpadded standard base32."""
    return base64.b32encode(secrets.token_bytes(32)).decode("ascii").rstrip("=")


def record_version_number() -> str:
    """Go's generateRecordVersionNumber: `<unix nanoseconds>:<randString>`."""
    return f"{time.time_ns()}:{random_name()}"


def nanoseconds(delta: timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * SECOND + delta.microseconds * 1_000


def string_value(value: Any) -> str:
    if isinstance(value, dict) and "S" in value:
        return str(value["S"])
    return ""


def additional_attributes(item: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in item.items() if name not in PROTOCOL_ATTRIBUTES}
