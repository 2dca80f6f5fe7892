"""Parsing and validation cached by query text, so a repeated query (the usual case for a
gateway behind known clients) is neither parsed nor validated again."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from graphql import DocumentNode, GraphQLError, GraphQLSchema
from strawberry.extensions import ParserCache, ValidationCache
from strawberry.schema.schema import validate_document

from schema.extensions.compact_validation import validate_compacted
from schema.graphql_schema import graphql_schema

#: Distinct query texts kept; each entry is one parsed document and its validation errors.
DOCUMENT_CACHE_SIZE = 512


class CachedParsing(ParserCache):
    def __init__(self) -> None:
        super().__init__(maxsize=DOCUMENT_CACHE_SIZE)


class ValidatedDocuments:
    """strawberry's validation (graphql-core's rules and its own) of the document's compact
    form first (schema/extensions/compact_validation.py), remembered per document.

    Remembered by the document's identity (the parser cache gives one document per text), not
    its value: AST nodes are frozen dataclasses, so hashing or comparing a document walks every
    node of it, which `lru_cache` did twice a request (~190 nodes for a full User)."""

    def __init__(self, maxsize: int = DOCUMENT_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._kept: OrderedDict[
            tuple[int, int, int], tuple[DocumentNode, GraphQLSchema, list[GraphQLError]]
        ] = OrderedDict()

    def __call__(
        self, schema: GraphQLSchema, document: DocumentNode, rules: tuple[Any, ...]
    ) -> list[GraphQLError]:
        key = (id(schema), id(document), hash(rules))
        kept = self._kept.get(key)
        if kept is not None and kept[0] is document and kept[1] is schema:
            self.hits += 1
            self._kept.move_to_end(key)
            return kept[2]
        self.misses += 1
        errors = validate_compacted(validate_document, schema, document, rules)
        # The entry holds the document and schema: their ids are not reused while it lives.
        self._kept[key] = (document, schema, errors)
        if len(self._kept) > self.maxsize:
            self._kept.popitem(last=False)
        return errors


cached_validate_document = ValidatedDocuments()


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
                graphql_schema(context.schema), context.graphql_document, context.validation_rules
            )
        yield
