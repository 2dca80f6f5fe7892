"""Refuses queries whose estimated DynamoDB work is over the limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from schema.extensions.query_limit import QueryLimit

if TYPE_CHECKING:
    from schema.prepared import PreparedOperation


class CostLimit(QueryLimit):
    """The prepared operation's cost for the request's variables: the cost reads a variable
    only through its size (a list's length, an integer's value), so `users(ids: $ids)` costs
    the same for any 10 ids and is measured once. The budget charge reads the same figure."""

    limit_name = "cost"

    def figure(self, operation: PreparedOperation) -> int:
        return operation.cost(self.execution_context.variables)
