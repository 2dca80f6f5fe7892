"""The base of the query limits: measure the parsed query, refuse it before validation."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import ClassVar

from graphql import DocumentNode, GraphQLError
from strawberry.extensions import SchemaExtension

from schema.document_memo import DocumentMemo
from schema.errors import QueryTooComplex


def too_complex(limit_name: str, maximum: int, figure: int) -> GraphQLError:
    """The GraphQL error of a query over a limit, coded QUERY_TOO_COMPLEX."""
    error = QueryTooComplex(limit_name, maximum, figure)
    return GraphQLError(error.message, extensions=error.graphql_extensions(), original_error=error)


class QueryLimit(SchemaExtension):
    """Refuses a parsed query whose `measure` is over `maximum`.

    It runs on entering validation, before graphql-core's own rules: some of those
    (overlapping fields) are quadratic in the query, so a query too big to run must not
    reach them, and of course no resolver (no DynamoDB call) runs either.

    With a `memo` (shared by every request's instance, see `query_limits`), a document
    from the parser cache is measured once per `memo_key`; without one, every time.
    """

    limit_name: ClassVar[str]

    def __init__(self, maximum: int, memo: DocumentMemo[int] | None = None) -> None:
        self.maximum = maximum
        self.memo = memo

    def measure(self, document: DocumentNode) -> int:
        raise NotImplementedError

    def memo_key(self) -> Hashable:
        """What, besides the document, the measure depends on."""
        return self.execution_context.operation_name

    def measured(self, document: DocumentNode) -> int:
        if self.memo is None:
            return self.measure(document)
        return self.memo.get(document, self.memo_key(), lambda: self.measure(document))

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if context.graphql_document is not None and not context.pre_execution_errors:
            figure = self.measured(context.graphql_document)
            if figure > self.maximum:
                context.pre_execution_errors = [too_complex(self.limit_name, self.maximum, figure)]
        yield
