"""Refuses queries whose estimated DynamoDB work is over the limit."""

from __future__ import annotations

from graphql import DocumentNode

from schema.extensions.measures import CostPolicy, query_cost
from schema.extensions.query_limit import QueryLimit


class CostLimit(QueryLimit):
    limit_name = "cost"

    def __init__(self, maximum: int, policy: CostPolicy | None = None) -> None:
        super().__init__(maximum)
        self.policy = policy or CostPolicy()

    def measure(self, document: DocumentNode) -> int:
        context = self.execution_context
        return query_cost(
            context.schema._schema,
            document,
            self.policy,
            context.operation_name,
            context.variables,
        )
