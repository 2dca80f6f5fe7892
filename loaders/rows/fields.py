"""Typed access to the attributes of a python-value item (see loaders.codec.from_wire).

Items are written by several services; an absent or NULL attribute reads as None, never as an
error, while a present value of the wrong shape is an error (it is a bug somewhere).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from loaders.codec import parse_date, parse_instant


def text(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}")
    return value


def decimal(item: Mapping[str, Any], name: str) -> Decimal | None:
    value = item.get(name)
    if value is None:
        return None
    if not isinstance(value, Decimal) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    return value


def integer(item: Mapping[str, Any], name: str) -> int | None:
    value = decimal(item, name)
    if value is None:
        return None
    if value != value.to_integral_value():
        raise ValueError(f"{name} must be a whole number, not {value}")
    return int(value)


def boolean(item: Mapping[str, Any], name: str) -> bool | None:
    value = item.get(name)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a boolean, not {type(value).__name__}")
    return value


def day(item: Mapping[str, Any], name: str) -> date | None:
    value = text(item, name)
    return parse_date(value) if value else None


def instant(item: Mapping[str, Any], name: str) -> datetime | None:
    value = text(item, name)
    return parse_instant(value) if value else None


def mapping(item: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    value = item.get(name)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a map, not {type(value).__name__}")
    return value


def items(item: Mapping[str, Any], name: str) -> list[Any]:
    value = item.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"{name} must be a list, not {type(value).__name__}")
    return value


def texts(item: Mapping[str, Any], name: str) -> tuple[str, ...]:
    values = items(item, name)
    if not all(isinstance(value, str) for value in values):
        raise TypeError(f"{name} must be a list of strings")
    return tuple(values)


def decimals(item: Mapping[str, Any], name: str) -> tuple[Decimal, ...]:
    values = items(item, name)
    if not all(isinstance(value, Decimal) for value in values):
        raise TypeError(f"{name} must be a list of numbers")
    return tuple(values)
