"""Refuses queries whose estimated DynamoDB work is over the limit, and the measure it shares."""

from __future__ import annotations

from graphql import DocumentNode
from strawberry.types import ExecutionContext

from schema.document_memo import DocumentMemo
from schema.extensions.document_shape import selection_count
from schema.extensions.measures import CostPolicy, query_cost
from schema.extensions.query_limit import QueryLimit


class CostMeasure:
    """What an operation costs under one policy, remembered per parsed document.

    One instance serves every extension that needs the cost, the cost limit and the budget
    charge alike: each document is measured once (per operation name, schema and variable
    sizes), and whoever asks second reads the memo.
    """

    def __init__(self, policy: CostPolicy | None = None, memo: DocumentMemo[int] | None = None):
        self.policy = policy or CostPolicy()
        self.memo: DocumentMemo[int] = DocumentMemo() if memo is None else memo
        self.sizes: DocumentMemo[int] = DocumentMemo()

    def size(self, document: DocumentNode) -> int:
        """The document's selections (schema/extensions/document_shape.py): what the
        selection limit bounds and what a refused document is charged by."""
        return self.sizes.get(document, None, lambda: selection_count(document))

    def of(self, context: ExecutionContext, document: DocumentNode) -> int:
        schema = context.schema._schema
        # The cost reads a variable only through its size (a list's length, an integer's
        # value): `users(ids: $ids)` costs the same for any 10 ids, and hits the memo.
        key = (context.operation_name, id(schema), self.policy.variable_sizes(context.variables))
        return self.memo.get(
            document,
            key,
            lambda: query_cost(
                schema, document, self.policy, context.operation_name, context.variables
            ),
        )


class CostLimit(QueryLimit):
    limit_name = "cost"

    def __init__(self, maximum: int, cost: CostMeasure | None = None) -> None:
        self.cost = cost or CostMeasure()
        super().__init__(maximum, self.cost.memo)

    def measure(self, document: DocumentNode) -> int:
        return self.cost.of(self.execution_context, document)

    def measured(self, document: DocumentNode) -> int:
        # The measure memoises itself, with its own key.
        return self.measure(document)
