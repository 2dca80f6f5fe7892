"""DynamoDB's wire form to Python values and back, and the scalar formats of the contract.

Numbers stay `Decimal` end to end (boto3's (de)serializer); they never pass through float.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from boto3.dynamodb.types import DYNAMODB_CONTEXT, Binary, TypeDeserializer, TypeSerializer

__all__ = [
    "Item",
    "WireItem",
    "epoch_seconds",
    "format_instant",
    "format_month",
    "from_wire",
    "is_live",
    "months_back",
    "parse_date",
    "parse_instant",
    "start_of_day",
    "to_wire",
]

#: An item as Python values: str, Decimal, bool, None, list, dict, bytes.
Item = dict[str, Any]
#: An item in DynamoDB's wire form: {"PK": {"S": "..."}, ...}.
WireItem = dict[str, Any]

_deserializer = TypeDeserializer()
_serializer = TypeSerializer()


def from_wire(wire: Mapping[str, Any]) -> Item:
    """What boto3's TypeDeserializer gives, without its per-value `getattr` dispatch: this
    runs for every attribute of every item read, the hottest loop after botocore's."""
    return _map(wire)


_decimal = DYNAMODB_CONTEXT.create_decimal


def _map(wire: Mapping[str, Any]) -> dict[str, Any]:
    # Strings and Numbers, most of the values, without a call each (twice as fast in all).
    decoded = {}
    for name, value in wire.items():
        if "S" in value:
            decoded[name] = value["S"]
        elif "N" in value:
            decoded[name] = _decimal(value["N"])
        else:
            decoded[name] = _value(value)
    return decoded


def _value(wire: Mapping[str, Any]) -> Any:
    for tag, value in wire.items():
        if tag == "S" or tag == "BOOL":
            return value
        if tag == "N":
            return _decimal(value)
        if tag == "M":
            return _map(value)
        if tag == "L":
            return [_value(inner) for inner in value]
        if tag == "NULL":
            return None
        if tag == "SS":
            return set(value)
        if tag == "NS":
            return set(map(_decimal, value))
        if tag == "B":
            return Binary(value)
        if tag == "BS":
            return set(map(Binary, value))
        break
    # Empty or unknown: boto3's own error.
    return _deserializer.deserialize(dict(wire))


def to_wire(item: Mapping[str, Any]) -> WireItem:
    return {name: _serializer.serialize(value) for name, value in item.items()}


def is_live(item: Mapping[str, Any], now: datetime) -> bool:
    """False for an item whose `ttl` is at or before `now`: DynamoDB deletes those lazily,
    so every reader treats them as absent."""
    ttl = item.get("ttl")
    if ttl is None:
        return True
    return Decimal(ttl) > Decimal(int(now.timestamp()))


def epoch_seconds(at: datetime) -> int:
    return int(at.timestamp())


def start_of_day(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def parse_date(value: str) -> date:
    return date.fromisoformat(value)


#: Instants `parse_instant` remembers: a user's items repeat theirs (every expense of one
#: mining run has its `last_mine`), and a datetime is immutable.
KEPT_INSTANTS = 4096


@lru_cache(maxsize=KEPT_INSTANTS)
def parse_instant(value: str) -> datetime:
    """RFC 3339: `Z` or an offset, with or without fractional seconds; returned in UTC."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(_trim_fraction(text))
    if parsed.tzinfo is None:
        raise ValueError(f"instant without a timezone: {value!r}")
    return parsed.astimezone(UTC)


def _trim_fraction(text: str) -> str:
    # Go writes up to nanoseconds; Python parses at most microseconds.
    dot = text.find(".")
    if dot == -1:
        return text
    end = dot + 1
    while end < len(text) and text[end].isdigit():
        end += 1
    digits = text[dot + 1 : end][:6]
    return text[:dot] + ("." + digits if digits else "") + text[end:]


def format_instant(at: datetime, *, microseconds: bool = False) -> str:
    """RFC 3339 in UTC with `Z`: seconds, plus the fraction when there is one (or always,
    with `microseconds`)."""
    utc = at.astimezone(UTC)
    if microseconds:
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if utc.microsecond:
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%f").rstrip("0") + "Z"
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def format_month(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def months_back(today: date, count: int) -> list[str]:
    """`YYYY-MM` of the month of `today` and the `count - 1` before it, newest first."""
    year, month = today.year, today.month
    months = []
    for _ in range(count):
        months.append(f"{year:04d}-{month:02d}")
        month -= 1
        if month == 0:
            year, month = year - 1, 12
    return months
