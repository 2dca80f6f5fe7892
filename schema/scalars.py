"""Scalars whose wire form the contract fixes: instants are RFC 3339 in UTC with `Z`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
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

SCALAR_OVERRIDES: dict[object, Any] = {datetime: DateTime}
