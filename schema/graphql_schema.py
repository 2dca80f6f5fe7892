"""graphql-core's schema under a strawberry schema: the one read of strawberry's private
`Schema._schema` in the product (strawberry 0.341.2 has no public accessor for it;
docs/dependencies.md). Everything that needs graphql-core's schema (validation, the limits,
the cost, the prepared operations, the compiled operations, the CLI) asks here."""

from __future__ import annotations

from graphql import GraphQLSchema
from strawberry.schema.base import BaseSchema

__all__ = ["graphql_schema"]


def graphql_schema(schema: BaseSchema) -> GraphQLSchema:
    """The graphql-core schema strawberry built `schema` into."""
    built: GraphQLSchema = schema._schema  # type: ignore[attr-defined]
    return built
