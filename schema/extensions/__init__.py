"""Strawberry schema extensions of the gateway: the query limits, one class per module."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from strawberry.extensions import DisableIntrospection, SchemaExtension

from schema.extensions.alias_limit import AliasLimit
from schema.extensions.cost_limit import CostLimit
from schema.extensions.depth_limit import DepthLimit
from schema.extensions.measures import CostPolicy
from schema.extensions.query_limit import QueryLimit
from schema.extensions.shape_limits import FragmentDepthLimit, OverlapLimit, SelectionLimit
from schema.extensions.token_limit import TokenLimit

if TYPE_CHECKING:
    from schema.prepared import PreparedOperations

__all__ = [
    "AliasLimit",
    "CostLimit",
    "CostPolicy",
    "DepthLimit",
    "FragmentDepthLimit",
    "OverlapLimit",
    "QueryLimit",
    "QueryLimits",
    "SelectionLimit",
    "TokenLimit",
    "query_limits",
    "request_extensions",
]


@dataclass(frozen=True, slots=True)
class QueryLimits:
    """The bounds a request is measured against before validation and execution (their
    defaults are the gateway's settings')."""

    max_tokens: int
    max_depth: int
    max_aliases: int
    max_cost: int
    introspection: bool
    max_selections: int = 1000
    max_fragment_depth: int = 50
    max_overlaps: int = 1000


def query_limits(
    limits: QueryLimits, prepared: PreparedOperations
) -> list[Callable[[], SchemaExtension]]:
    """The limit extensions for `strawberry.Schema(extensions=...)`.

    Factories, not instances: strawberry builds one extension per request, so that
    concurrent requests never share an execution context; every measuring limit reads its
    figure from the request's prepared operation in `prepared` (schema/prepared.py), which
    the budget charge reads too. Every measure is linear in the text; the overlap count,
    whose walk the selection limit bounds, comes last.
    """
    return [
        partial(TokenLimit, limits.max_tokens),
        partial(DepthLimit, limits.max_depth, prepared),
        partial(AliasLimit, limits.max_aliases, prepared),
        partial(CostLimit, limits.max_cost, prepared),
        partial(SelectionLimit, limits.max_selections, prepared),
        partial(FragmentDepthLimit, limits.max_fragment_depth, prepared),
        partial(OverlapLimit, limits.max_overlaps, prepared),
    ]


def request_extensions(
    limits: QueryLimits, prepared: PreparedOperations
) -> list[Callable[[], SchemaExtension]]:
    """Every extension the limits ask for: the measures, and introspection when turned off."""
    extensions = query_limits(limits, prepared)
    if not limits.introspection:
        extensions.append(DisableIntrospection)
    return extensions
