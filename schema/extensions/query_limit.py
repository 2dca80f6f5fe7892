"""The query limits: one extension that refuses a query over any of them, before graphql-core
validates it and before anything runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphql import GraphQLError, GraphQLSyntaxError
from strawberry.extensions import SchemaExtension

from schema.errors import QueryTooComplex, graphql_error
from schema.extensions.measures import token_count
from schema.graphql_schema import graphql_schema

if TYPE_CHECKING:
    from schema.prepared import PreparedOperation, PreparedOperations

# Counting the tokens of a refused query costs a lexer pass (about 4 µs a token); past
# twice the limit the figure reported is that bound, so a huge body cannot buy a long count.
COUNT_CAP_FACTOR = 2


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


def too_complex(limit_name: str, maximum: int, figure: int) -> GraphQLError:
    """The GraphQL error of a query over a limit, coded QUERY_TOO_COMPLEX."""
    return graphql_error(QueryTooComplex(limit_name, maximum, figure))


#: A measured limit: its name in the error, its maximum and its figure of an operation for
#: the request's variables.
Measure = tuple[str, int, Callable[["PreparedOperation", object], int]]


def measures(limits: QueryLimits) -> tuple[Measure, ...]:
    """The measured limits in the order they are checked: every measure is linear in the
    text; the overlap count, whose walk the selection limit bounds, comes last and stops
    counting past its maximum (the figure is not needed exactly there)."""
    return (
        ("depth", limits.max_depth, lambda operation, _: operation.depth),
        ("aliases", limits.max_aliases, lambda operation, _: operation.aliases),
        # The cost reads a variable only through its size (a list's length, an integer's
        # value): `users(ids: $ids)` costs the same for any 10 ids. The budget charges it.
        ("cost", limits.max_cost, lambda operation, variables: operation.cost(variables)),
        # The document's shape (schema/extensions/document_shape.py): each reads the whole
        # document, whichever operation runs, as validation reads it all.
        ("selections", limits.max_selections, lambda operation, _: operation.selections),
        (
            "fragment depth",
            limits.max_fragment_depth,
            lambda operation, _: operation.fragment_depth,
        ),
        (
            "overlapping field pairs",
            limits.max_overlaps,
            lambda operation, _: operation.overlaps(stop_above=limits.max_overlaps),
        ),
    )


class QueryLimitsCheck(SchemaExtension):
    """Refuses a query over a limit with QUERY_TOO_COMPLEX and the figure: the first limit
    it is over, in `measures`' order, after the tokens.

    Tokens: graphql-core's parser stops at `max_tokens`; this turns that stop into the
    refusal in place of a bare syntax error. The other figures are read, on entering
    validation, from the request's prepared operation (schema/prepared.py, shared with the
    budget charge: a repeated text is measured once), before graphql-core's own rules run:
    some of those (overlapping fields) are quadratic in the query, so a query too big to run
    must not reach them, and of course no resolver (no DynamoDB call) runs either.

    One extension for every limit: strawberry builds each extension anew for each request
    and enters each of its hooks, so one costs a request less than seven."""

    def __init__(self, limits: QueryLimits, prepared: PreparedOperations) -> None:
        self.limits = limits
        self.prepared = prepared
        self.measures = measures(limits)

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        context.parse_options["max_tokens"] = self.limits.max_tokens
        try:
            yield
        except GraphQLSyntaxError as error:
            # A parse inside a parsing extension (strawberry's ParserCache) raises through
            # the operation instead of ending in a result.
            refusal = self._token_refusal()
            if refusal is None:
                raise
            raise refusal from error
        result = context.result
        if result is None or not result.errors:
            return
        if any(isinstance(error, GraphQLSyntaxError) for error in result.errors):
            refusal = self._token_refusal()
            if refusal is not None:
                result.errors = [refusal]
                context.pre_execution_errors = result.errors

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None and not context.pre_execution_errors:
            operation = self.prepared.prepare(
                graphql_schema(context.schema), context.query, document, context.operation_name
            )
            for name, maximum, figure_of in self.measures:
                figure = figure_of(operation, context.variables)
                if figure > maximum:
                    context.pre_execution_errors = [too_complex(name, maximum, figure)]
                    break
        yield

    def _token_refusal(self) -> GraphQLError | None:
        """The QUERY_TOO_COMPLEX error when the query is over the token limit, else None."""
        query = self.execution_context.query
        if not query:
            return None
        maximum = self.limits.max_tokens
        figure = token_count(query, cap=maximum * COUNT_CAP_FACTOR)
        if figure <= maximum:
            return None
        return too_complex("tokens", maximum, figure)
