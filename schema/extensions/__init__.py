"""Strawberry schema extensions of the gateway: the query limits."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from strawberry.extensions import DisableIntrospection, SchemaExtension

from schema.extensions.measures import CostPolicy
from schema.extensions.query_limit import QueryLimits, QueryLimitsCheck

if TYPE_CHECKING:
    from schema.prepared import PreparedOperations

__all__ = [
    "CostPolicy",
    "QueryLimits",
    "QueryLimitsCheck",
    "request_extensions",
]


def request_extensions(
    limits: QueryLimits, prepared: PreparedOperations
) -> list[Callable[[], SchemaExtension]]:
    """The extensions the limits ask for, for `strawberry.Schema(extensions=...)`: their check
    and, when introspection is turned off, strawberry's refusal of it.

    Factories, not instances: strawberry builds one extension per request, so that
    concurrent requests never share an execution context; the check reads its figures from
    the request's prepared operation in `prepared` (schema/prepared.py), which the budget
    charge reads too."""
    extensions: list[Callable[[], SchemaExtension]] = [partial(QueryLimitsCheck, limits, prepared)]
    if not limits.introspection:
        extensions.append(DisableIntrospection)
    return extensions
