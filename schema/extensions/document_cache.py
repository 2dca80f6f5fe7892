"""Parsing and validation cached by query text, so a repeated query (the usual case for a
gateway behind known clients) is neither parsed nor validated again."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from graphql import DocumentNode, GraphQLError, GraphQLSchema
from strawberry.extensions import ParserCache, ValidationCache
from strawberry.schema.schema import validate_document

from schema.extensions.compact_validation import validate_compacted

#: Distinct query texts kept; each entry is one parsed document and its validation errors.
DOCUMENT_CACHE_SIZE = 512


class CachedParsing(ParserCache):
    def __init__(self) -> None:
        super().__init__(maxsize=DOCUMENT_CACHE_SIZE)


@lru_cache(maxsize=DOCUMENT_CACHE_SIZE)
def cached_validate_document(
    schema: GraphQLSchema, document: DocumentNode, rules: tuple[Any, ...]
) -> list[GraphQLError]:
    """strawberry's validation (graphql-core's rules and its own) of the document's compact
    form first (schema/extensions/compact_validation.py), remembered per document."""
    return validate_compacted(validate_document, schema, document, rules)


class CachedValidation(ValidationCache):
    """strawberry's ValidationCache, except that it leaves alone a query an earlier
    extension (a query limit) already refused (the stock one would overwrite its errors),
    and validates a document's compact form first."""

    def __init__(self) -> None:
        super().__init__(maxsize=DOCUMENT_CACHE_SIZE)
        self.cached_validate_document = cached_validate_document

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if context.pre_execution_errors is None and context.graphql_document is not None:
            context.pre_execution_errors = self.cached_validate_document(
                context.schema._schema, context.graphql_document, context.validation_rules
            )
        yield
