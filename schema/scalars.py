"""Scalars whose wire form the contract fixes: instants are RFC 3339 in UTC with `Z`;
decimals with two decimals at least, as written (SPEC section 3); dates keep strawberry's
wire form, described as the contract has them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import UTC, date, datetime
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


#: Past this many remembered wire forms (per scalar), they are forgotten all at once.
MAX_REMEMBERED_FORMS = 65_536


class WireForms:
    """The wire forms of Decimal and DateTime values, remembered per value: a warm cache
    serves the same values request after request. One per schema, held by its prepared
    operations' owner (schema/prepared.py), never a module global."""

    __slots__ = ("_decimals", "_instants", "maxsize")

    def __init__(self, maxsize: int = MAX_REMEMBERED_FORMS) -> None:
        self.maxsize = maxsize
        self._decimals: dict[Decimal, str] = {}
        self._instants: dict[datetime, str] = {}

    def decimal(self, value: object) -> str:
        """`format_decimal`, remembered per value: the form depends on the number alone
        (equal Decimals, `1.1` and `1.10`, have one form)."""
        if type(value) is not Decimal:
            return format_decimal(value)
        try:
            form = self._decimals.get(value)
        except TypeError:  # a signaling NaN has no hash (format_decimal refuses it)
            return format_decimal(value)
        if form is None:
            form = format_decimal(value)
            if len(self._decimals) >= self.maxsize:
                self._decimals.clear()
            self._decimals[value] = form
        return form

    def known_decimals(self) -> Mapping[Decimal, str]:
        """The Decimal forms remembered so far (the same mapping for the forms' lifetime): the
        generated completion looks a value up in it before calling `decimal`."""
        return self._decimals

    def instant(self, at: datetime) -> str:
        """`format_instant`, remembered per instant in UTC (as every row holds them): equal
        instants have one form."""
        if type(at) is not datetime or at.tzinfo is not UTC:
            return format_instant(at)
        form = self._instants.get(at)
        if form is None:
            form = format_instant(at)
            if len(self._instants) >= self.maxsize:
                self._instants.clear()
            self._instants[at] = form
        return form

    def __len__(self) -> int:
        return len(self._decimals) + len(self._instants)


DateTime: ScalarDefinition = strawberry.scalar(
    name="DateTime",
    description="An instant, RFC 3339 in UTC (`2026-12-02T11:31:28Z`).",
    parse_value=_parse_datetime,
)

DecimalScalar: ScalarDefinition = dataclasses.replace(
    DecimalDefinition,
    description='An exact decimal number, as a string with two decimals (`"1.10"`, '
    '`"100.00"`), or more where the stored number has more (`"1.005"`); never rounded, '
    "never through floating point. Amounts are dollars with at most two decimals unless the "
    "field says otherwise (amounts in cents are `Int`).",
)


def scalar_overrides(forms: WireForms) -> dict[object, Any]:
    """The scalars of a schema, their wire forms remembered in `forms`."""
    return {
        datetime: dataclasses.replace(DateTime, serialize=forms.instant),
        date: DateScalar,
        Decimal: dataclasses.replace(DecimalScalar, serialize=forms.decimal),
    }
