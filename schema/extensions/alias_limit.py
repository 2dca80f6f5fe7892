"""Refuses queries with more aliased fields than the limit (alias bombs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from schema.extensions.query_limit import QueryLimit

if TYPE_CHECKING:
    from schema.prepared import PreparedOperation


class AliasLimit(QueryLimit):
    limit_name = "aliases"

    def figure(self, operation: PreparedOperation) -> int:
        return operation.aliases
