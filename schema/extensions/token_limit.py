"""Refuses queries of more tokens than the limit, without parsing past it."""

from __future__ import annotations

from collections.abc import Iterator

from graphql import GraphQLError, GraphQLSyntaxError
from strawberry.extensions import SchemaExtension

from schema.extensions.measures import token_count
from schema.extensions.query_limit import too_complex

# Counting the tokens of a refused query costs a lexer pass (about 4 µs a token); past
# twice the limit the figure reported is that bound, so a huge body cannot buy a long count.
COUNT_CAP_FACTOR = 2


class TokenLimit(SchemaExtension):
    """graphql-core's parser stops at `maximum` tokens; this turns that stop into
    QUERY_TOO_COMPLEX with the figure, in place of a bare syntax error."""

    limit_name = "tokens"

    def __init__(self, maximum: int) -> None:
        self.maximum = maximum

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        context.parse_options["max_tokens"] = self.maximum
        try:
            yield
        except GraphQLSyntaxError as error:
            # A parse inside a parsing extension (strawberry's ParserCache) raises through
            # the operation instead of ending in a result.
            refusal = self._refusal()
            if refusal is None:
                raise
            raise refusal from error
        result = context.result
        if result is None or not result.errors:
            return
        if any(isinstance(error, GraphQLSyntaxError) for error in result.errors):
            refusal = self._refusal()
            if refusal is not None:
                result.errors = [refusal]
                context.pre_execution_errors = result.errors

    def _refusal(self) -> GraphQLError | None:
        """The QUERY_TOO_COMPLEX error when the query is over the limit, else None."""
        query = self.execution_context.query
        if not query:
            return None
        figure = token_count(query, cap=self.maximum * COUNT_CAP_FACTOR)
        if figure <= self.maximum:
            return None
        return too_complex(self.limit_name, self.maximum, figure)
