"""The base of the query limits: read a figure of the prepared operation, refuse it before
validation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from graphql import GraphQLError
from strawberry.extensions import SchemaExtension

from schema.errors import QueryTooComplex
from schema.graphql_schema import graphql_schema

if TYPE_CHECKING:
    from schema.prepared import PreparedOperation, PreparedOperations


def too_complex(limit_name: str, maximum: int, figure: int) -> GraphQLError:
    """The GraphQL error of a query over a limit, coded QUERY_TOO_COMPLEX."""
    error = QueryTooComplex(limit_name, maximum, figure)
    return GraphQLError(error.message, extensions=error.graphql_extensions(), original_error=error)


class QueryLimit(SchemaExtension):
    """Refuses a parsed query whose `figure` is over `maximum`.

    It runs on entering validation, before graphql-core's own rules: some of those
    (overlapping fields) are quadratic in the query, so a query too big to run must not
    reach them, and of course no resolver (no DynamoDB call) runs either.

    The figure is read from the request's prepared operation (schema/prepared.py, shared by
    every request's instance, see `query_limits`): a repeated text is measured once.
    """

    limit_name: ClassVar[str]

    def __init__(self, maximum: int, prepared: PreparedOperations) -> None:
        self.maximum = maximum
        self.prepared = prepared

    def figure(self, operation: PreparedOperation) -> int:
        raise NotImplementedError

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None and not context.pre_execution_errors:
            operation = self.prepared.prepare(
                graphql_schema(context.schema), context.query, document, context.operation_name
            )
            figure = self.figure(operation)
            if figure > self.maximum:
                context.pre_execution_errors = [too_complex(self.limit_name, self.maximum, figure)]
        yield
