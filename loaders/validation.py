"""Checks of a mutation's input, each raising `BadUserInput` that names the input field.

Writers run every check before their first write, so bad input never leaves a partial
write behind. Field names are the GraphQL input's (`accounts[1].amount`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from decimal import Decimal, InvalidOperation
from typing import TypeVar

from loaders.errors import BadUserInput

T = TypeVar("T")

MAX_ID_LENGTH = 256
#: DynamoDB refuses a partition key over 2,048 bytes and a sort key over 1,024, and refuses
#: the whole call with it. An id is built into both (`PAYDAY#<id>`, `INCOME#<id>`): the
#: longest text around it in a sort key, `INCOME#`, keeps 1,000 bytes of id inside 1,024.
MAX_ID_BYTES = 1000
MAX_TEXT_LENGTH = 1024
#: Dollar amounts stay far inside DynamoDB's 38 digits and any real balance.
MONEY_LIMIT = Decimal("1000000000000")
#: Cents as an integer that JSON clients (doubles) still read exactly.
CENTS_LIMIT = 2**53
_CENT = Decimal("0.01")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


def key_part(field: str, value: str) -> str:
    """An id that every key built from it keeps inside DynamoDB's limits: not blank, at
    most MAX_ID_LENGTH characters and MAX_ID_BYTES bytes. Reads check their ids with it
    (an id of rows written elsewhere may have any other character), writers with
    `identifier`."""
    if not value.strip():
        raise BadUserInput(field, "must not be empty")
    if len(value) > MAX_ID_LENGTH or len(value.encode("utf-8", "surrogatepass")) > MAX_ID_BYTES:
        raise BadUserInput(
            field, f"must be at most {MAX_ID_LENGTH} characters and {MAX_ID_BYTES} bytes"
        )
    return value


def identifier(field: str, value: str) -> str:
    """A non-empty id without surrounding whitespace, short enough for a key."""
    key_part(field, value)
    if value != value.strip():
        raise BadUserInput(field, "must not start or end with whitespace")
    if any(ord(character) < 0x20 for character in value):
        raise BadUserInput(field, "must not contain control characters")
    return value


def text(field: str, value: str, *, max_length: int = MAX_TEXT_LENGTH) -> str:
    if len(value) > max_length:
        raise BadUserInput(field, f"must be at most {max_length} characters")
    return value


def non_empty_text(field: str, value: str, *, max_length: int = MAX_TEXT_LENGTH) -> str:
    if not value.strip():
        raise BadUserInput(field, "must not be empty")
    return text(field, value, max_length=max_length)


def money(field: str, value: Decimal) -> Decimal:
    """Dollars with at most two decimals, in their canonical form (see `canonical`)."""
    if not value.is_finite():
        raise BadUserInput(field, "must be a finite amount")
    try:
        exact = value.quantize(_CENT) == value
    except InvalidOperation:
        exact = False
    if not exact:
        raise BadUserInput(field, "must have at most two decimal places")
    if abs(value) >= MONEY_LIMIT:
        raise BadUserInput(field, f"must be less than {MONEY_LIMIT} in size")
    return canonical(value)


def canonical(value: Decimal) -> Decimal:
    """The number as DynamoDB stores it: no exponent, no trailing zeros, no negative zero
    (`1.10` -> `1.1`, `1E+2` -> `100`), so the bytes written are the bytes read back."""
    if value == 0:
        return Decimal(0)
    return Decimal(format(value.normalize(), "f"))


def cents(field: str, value: int) -> int:
    if value < 0:
        raise BadUserInput(field, "must not be negative")
    if value >= CENTS_LIMIT:
        raise BadUserInput(field, f"must be less than {CENTS_LIMIT}")
    return value


def whole_number(field: str, value: int, *, minimum: int, maximum: int) -> int:
    if not minimum <= value <= maximum:
        raise BadUserInput(field, f"must be from {minimum} to {maximum}")
    return value


def probability(field: str, value: Decimal) -> Decimal:
    if not value.is_finite() or not Decimal(0) <= value <= Decimal(1):
        raise BadUserInput(field, "must be from 0 to 1")
    if len(value.as_tuple().digits) > 38:
        raise BadUserInput(field, "must have at most 38 digits")
    return canonical(value)


def choice(allowed: Collection[str]) -> Callable[[str, str], str]:
    """One of `allowed`, as a declared input's check (`loaders.record.Input`)."""

    def one_of(field: str, value: str) -> str:
        if value not in allowed:
            choices = ", ".join(repr(choice) for choice in sorted(allowed))
            raise BadUserInput(field, f"must be one of {choices}")
        return value

    return one_of


def bounded(field: str, items: Sequence[T], *, maximum: int) -> Sequence[T]:
    if len(items) > maximum:
        raise BadUserInput(field, f"must have at most {maximum} entries")
    return items


def month(field: str, value: str) -> str:
    """`YYYY-MM` with a month from 01 to 12."""
    match = _MONTH.match(value)
    if match is None or not 1 <= int(match.group(2)) <= 12 or int(match.group(1)) < 1:
        raise BadUserInput(field, "must be a month as YYYY-MM")
    return value
