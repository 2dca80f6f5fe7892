"""Refuses queries nested deeper than the limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from schema.extensions.query_limit import QueryLimit

if TYPE_CHECKING:
    from schema.prepared import PreparedOperation


class DepthLimit(QueryLimit):
    limit_name = "depth"

    def figure(self, operation: PreparedOperation) -> int:
        return operation.depth
