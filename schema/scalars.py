"""Scalars whose wire form the contract fixes: instants are RFC 3339 in UTC with `Z`;
decimals with two decimals at least, as written (SPEC section 3); dates keep strawberry's
wire form, described as the contract has them."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import strawberry
from strawberry.schema.types.base_scalars import DateDefinition, DecimalDefinition
from strawberry.types.scalar import ScalarDefinition

from loaders.codec import format_instant, parse_instant


def _parse_datetime(value: Any) -> datetime:
    if not isinstance(value, str):
        raise ValueError("DateTime must be an RFC 3339 string")
    return parse_instant(value)


DateTime: ScalarDefinition = strawberry.scalar(
    name="DateTime",
    description="An instant, RFC 3339 in UTC (`2026-12-02T11:31:28Z`).",
    serialize=format_instant,
    parse_value=_parse_datetime,
)

DateScalar: ScalarDefinition = dataclasses.replace(
    DateDefinition,
    description="A calendar date, `YYYY-MM-DD` (`2026-12-02`). A field says when it is a UTC "
    "day; otherwise it is the date as the source computed it.",
)


def format_decimal(value: object) -> str:
    """A Decimal's wire form: two decimals at least (`"1.10"`, `"100.00"`), more where the
    number has more (`"1.005"`), never rounded and never in exponent notation.

    DynamoDB normalises numbers (`1.10` is stored as `1.1`), so the form is made here, from
    the digits alone: trailing zeros past the second decimal carry no value and go.
    """
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    if not number.is_finite():
        raise ValueError(f"Decimal cannot represent {number}")
    if number.is_zero():
        number = abs(number)  # no "-0.00"
    whole, _, fraction = format(number, "f").partition(".")
    return f"{whole}.{fraction.rstrip('0').ljust(2, '0')}"


DecimalScalar: ScalarDefinition = dataclasses.replace(
    DecimalDefinition,
    description='An exact decimal number, as a string with two decimals (`"1.10"`, '
    '`"100.00"`), or more where the stored number has more (`"1.005"`); never rounded, '
    "never through floating point. Amounts are dollars with at most two decimals unless the "
    "field says otherwise (amounts in cents are `Int`).",
    serialize=format_decimal,
)

SCALAR_OVERRIDES: dict[object, Any] = {
    datetime: DateTime,
    date: DateScalar,
    Decimal: DecimalScalar,
}
