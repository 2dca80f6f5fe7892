"""Parsing and validation cached by query text, so a repeated query (the usual case for a
gateway behind known clients) is neither parsed nor validated again."""

from __future__ import annotations

from collections.abc import Iterator

from strawberry.extensions import ParserCache, ValidationCache

#: Distinct query texts kept; each entry is one parsed document and its validation errors.
DOCUMENT_CACHE_SIZE = 512


class CachedParsing(ParserCache):
    def __init__(self) -> None:
        super().__init__(maxsize=DOCUMENT_CACHE_SIZE)


class CachedValidation(ValidationCache):
    """strawberry's ValidationCache, except that it leaves alone a query an earlier
    extension (a query limit) already refused: the stock one would overwrite its errors."""

    def __init__(self) -> None:
        super().__init__(maxsize=DOCUMENT_CACHE_SIZE)

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if context.pre_execution_errors is None and context.graphql_document is not None:
            context.pre_execution_errors = self.cached_validate_document(
                context.schema._schema, context.graphql_document, context.validation_rules
            )
        yield
