"""The schema extension that charges each operation to its principal's budget.

It runs once the operation is parsed and validated (the query limits passed), on entering
execution: the cost is known, the principal is the Context's, and nothing has been read.
Over budget (or the storage down and the gateway failing closed) it sets the operation's
result to the refusal, which strawberry returns instead of executing: no resolver runs,
no DynamoDB call is made. Each operation of a batch is charged on its own.

A document refused before execution (by a query limit, by validation, or unparsable) cost
the gateway CPU all the same, so it is charged too, by its size: one point per
`POINTS_PER` selections (schema/extensions/document_shape.py), or, unparsed, per
`POINTS_PER` tokens; at least 1. A client that sends only refused documents meets 429.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator

from graphql import ExecutionResult, GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from gateway.protection.rate_limit import Budgets, record_charge
from loaders.errors import GatewayError
from schema.context import Context
from schema.errors import graphql_error
from schema.extensions.measures import token_count
from schema.graphql_schema import graphql_schema
from schema.prepared import PreparedOperations
from schema.principal import Principal

#: The token cap when no token limit is set (the gateway always sets one).
TOKEN_CAP = 10_000


#: Selections (or tokens, for a document that did not parse) per point charged for a
#: refused document: 495 sibling fields (990 selections) cost 99 points, a typo in a
#: 24-selection frontend query 3.
POINTS_PER = 10


def refusal_points(size: int) -> int:
    """What a refused document of `size` selections or tokens is charged."""
    return max(1, math.ceil(size / POINTS_PER))


class BudgetCharge(SchemaExtension):
    """Charges what the cost limit measured (at least 1 point).

    Given the cost limit's own PreparedOperations, it reads the cost the limit measured on
    validation from the request's prepared operation: a document is never measured twice.
    """

    def __init__(self, budgets: Budgets, prepared: PreparedOperations) -> None:
        self.budgets = budgets
        self.prepared = prepared
        self.charged = False

    async def on_operation(self) -> AsyncIterator[None]:
        try:
            yield
        except GraphQLError as error:
            # Unparsable, raised through the parser cache: charged, then answered as it is.
            refusal = await self._charge_refused()
            if refusal is None:
                raise
            raise graphql_error(refusal) from error
        # strawberry's result (not graphql-core's): errors and no data is a refusal.
        result = self.execution_context.result
        if result is not None and result.errors and result.data is None:
            refusal = await self._charge_refused()
            if refusal is not None:
                result.errors = [graphql_error(refusal)]

    async def _charge_refused(self) -> GatewayError | None:
        """Charges a document refused before execution by its size; the refusal, if the
        budget is spent (or its storage down and the gateway failing closed)."""
        context = self.execution_context
        principal = getattr(context.context, "principal", None)
        reread = isinstance(context.context, Context) and context.context.reread
        if self.charged or reread or not isinstance(principal, Principal):
            return None
        document = context.graphql_document
        if document is not None:
            operation = self.prepared.prepare(
                graphql_schema(context.schema), context.query, document, context.operation_name
            )
            size = operation.selections
        else:
            cap = 2 * int(context.parse_options.get("max_tokens") or TOKEN_CAP)
            size = token_count(context.query or "", cap=cap)
        return await self._charge(principal, refusal_points(size))

    async def _charge(self, principal: Principal, cost: int) -> GatewayError | None:
        self.charged = True
        try:
            charge = await self.budgets.charge(principal, cost)
        except GatewayError as error:  # the storage is down and the gateway fails closed
            return error
        record_charge(charge)
        return None if charge.allowed else charge.refusal()

    async def on_execute(self) -> AsyncIterator[None]:
        context = self.execution_context
        principal = getattr(context.context, "principal", None)
        document = context.graphql_document
        reread = isinstance(context.context, Context) and context.context.reread
        if (
            isinstance(principal, Principal)
            and document is not None
            and context.result is None
            and not reread
        ):
            operation = self.prepared.prepare(
                graphql_schema(context.schema), context.query, document, context.operation_name
            )
            cost = max(1, operation.cost(context.variables))
            refusal = await self._charge(principal, cost)
            if refusal is not None:
                if context.operation_type is OperationType.SUBSCRIPTION:
                    # strawberry starts a subscription whatever the result: refuse it here.
                    raise refusal
                context.result = ExecutionResult(data=None, errors=[graphql_error(refusal)])
        yield
