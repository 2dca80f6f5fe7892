"""Refuses queries with more aliased fields than the limit (alias bombs)."""

from __future__ import annotations

from graphql import DocumentNode

from schema.extensions.measures import alias_count
from schema.extensions.query_limit import QueryLimit


class AliasLimit(QueryLimit):
    limit_name = "aliases"

    def measure(self, document: DocumentNode) -> int:
        return alias_count(document, self.execution_context.operation_name)
