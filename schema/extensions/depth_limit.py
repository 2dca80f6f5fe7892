"""Refuses queries nested deeper than the limit."""

from __future__ import annotations

from graphql import DocumentNode

from schema.extensions.measures import query_depth
from schema.extensions.query_limit import QueryLimit


class DepthLimit(QueryLimit):
    limit_name = "depth"

    def measure(self, document: DocumentNode) -> int:
        return query_depth(document, self.execution_context.operation_name)
