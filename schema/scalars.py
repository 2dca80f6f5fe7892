"""Scalars whose wire form the contract fixes: instants are RFC 3339 in UTC with `Z`;
dates and decimals keep strawberry's wire form, described as the contract has them."""

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

DecimalScalar: ScalarDefinition = dataclasses.replace(
    DecimalDefinition,
    description='An exact decimal number, as a string (`"1234.56"`), never rounded through '
    "floating point. Amounts are dollars with at most two decimals unless the field says "
    "otherwise (amounts in cents are `Int`).",
)

SCALAR_OVERRIDES: dict[object, Any] = {
    datetime: DateTime,
    date: DateScalar,
    Decimal: DecimalScalar,
}
