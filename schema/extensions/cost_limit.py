"""Refuses queries whose estimated DynamoDB work is over the limit."""

from __future__ import annotations

from collections.abc import Hashable

from graphql import DocumentNode

from schema.document_memo import DocumentMemo
from schema.extensions.measures import CostPolicy, query_cost
from schema.extensions.query_limit import QueryLimit


class CostLimit(QueryLimit):
    limit_name = "cost"

    def __init__(
        self,
        maximum: int,
        policy: CostPolicy | None = None,
        memo: DocumentMemo[int] | None = None,
    ) -> None:
        super().__init__(maximum, memo)
        self.policy = policy or CostPolicy()

    def memo_key(self) -> Hashable:
        # The cost reads a variable only through its size (a list's length, an integer's
        # value): `users(ids: $ids)` costs the same for any 10 ids, and hits the memo.
        context = self.execution_context
        return (
            context.operation_name,
            id(context.schema._schema),
            self.policy.variable_sizes(context.variables),
        )

    def measure(self, document: DocumentNode) -> int:
        context = self.execution_context
        return query_cost(
            context.schema._schema,
            document,
            self.policy,
            context.operation_name,
            context.variables,
        )
