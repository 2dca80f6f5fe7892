"""The executable schema."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import strawberry
from strawberry.extensions import SchemaExtension
from strawberry.schema.config import StrawberryConfig

from schema.errors import GatewayErrors
from schema.query import Query
from schema.scalars import SCALAR_OVERRIDES


def build_schema(
    extensions: Iterable[type[SchemaExtension] | Callable[[], SchemaExtension]] = (),
) -> strawberry.Schema:
    """The gateway's schema, with the given extensions (limits, masking, metrics...)."""
    return strawberry.Schema(
        query=Query,
        extensions=[*extensions, GatewayErrors],
        scalar_overrides=SCALAR_OVERRIDES,
        config=StrawberryConfig(auto_camel_case=True),
    )
