"""Strawberry schema extensions of the gateway: the query limits, one class per module."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from strawberry.extensions import DisableIntrospection, SchemaExtension

from schema.document_memo import DocumentMemo
from schema.extensions.alias_limit import AliasLimit
from schema.extensions.cost_limit import CostLimit, CostMeasure
from schema.extensions.depth_limit import DepthLimit
from schema.extensions.measures import CostPolicy
from schema.extensions.query_limit import QueryLimit
from schema.extensions.token_limit import TokenLimit

__all__ = [
    "AliasLimit",
    "CostLimit",
    "CostMeasure",
    "CostPolicy",
    "DepthLimit",
    "QueryLimit",
    "QueryLimits",
    "TokenLimit",
    "query_limits",
    "request_extensions",
]


@dataclass(frozen=True, slots=True)
class QueryLimits:
    """The bounds a request is measured against before validation and execution."""

    max_tokens: int = 2000
    max_depth: int = 10
    max_aliases: int = 30
    max_cost: int = 10_000
    introspection: bool = True


def query_limits(limits: QueryLimits, cost: CostMeasure) -> list[Callable[[], SchemaExtension]]:
    """The limit extensions for `strawberry.Schema(extensions=...)`.

    Factories, not instances: strawberry builds one extension per request, so that
    concurrent requests never share an execution context; each measuring limit's
    factory shares one memo across requests, the cost limit's being `cost`'s (which the budget
    charge reads too). Cheapest checks first.
    """
    return [
        partial(TokenLimit, limits.max_tokens),
        partial(DepthLimit, limits.max_depth, memo=DocumentMemo()),
        partial(AliasLimit, limits.max_aliases, memo=DocumentMemo()),
        partial(CostLimit, limits.max_cost, cost),
    ]


def request_extensions(
    limits: QueryLimits, cost: CostMeasure
) -> list[Callable[[], SchemaExtension]]:
    """Every extension the limits ask for: the measures, and introspection when turned off."""
    extensions = query_limits(limits, cost)
    if not limits.introspection:
        extensions.append(DisableIntrospection)
    return extensions
