"""Strawberry schema extensions of the gateway: the query limits, one class per module."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from strawberry.extensions import DisableIntrospection, SchemaExtension

from gateway.settings import Settings
from schema.document_memo import DocumentMemo
from schema.extensions.alias_limit import AliasLimit
from schema.extensions.cost_limit import CostLimit
from schema.extensions.depth_limit import DepthLimit
from schema.extensions.measures import CostPolicy
from schema.extensions.query_limit import QueryLimit
from schema.extensions.token_limit import TokenLimit

__all__ = [
    "AliasLimit",
    "CostLimit",
    "CostPolicy",
    "DepthLimit",
    "QueryLimit",
    "TokenLimit",
    "query_limits",
    "request_extensions",
]


def query_limits(settings: Settings, policy: CostPolicy) -> list[Callable[[], SchemaExtension]]:
    """The limit extensions for `strawberry.Schema(extensions=...)`, from the settings.

    Factories, not instances: strawberry builds one extension per request, so that
    concurrent requests never share an execution context; each measuring limit's
    factory shares one memo across requests. Cheapest checks first.
    """
    return [
        partial(TokenLimit, settings.max_query_tokens),
        partial(DepthLimit, settings.max_query_depth, memo=DocumentMemo()),
        partial(AliasLimit, settings.max_query_aliases, memo=DocumentMemo()),
        partial(CostLimit, settings.max_query_cost, policy, memo=DocumentMemo()),
    ]


def request_extensions(
    settings: Settings, policy: CostPolicy
) -> list[Callable[[], SchemaExtension]]:
    """Every extension the settings ask for: the limits, and introspection when turned off."""
    extensions = query_limits(settings, policy)
    if not settings.introspection:
        extensions.append(DisableIntrospection)
    return extensions
