"""The schema extension that charges each operation to its principal's budget.

It runs once the operation is parsed and validated (the query limits passed), on entering
execution: the cost is known, the principal is the Context's, and nothing has been read.
Over budget (or the storage down and the gateway failing closed) it sets the operation's
result to the refusal, which strawberry returns instead of executing: no resolver runs,
no DynamoDB call is made. Each operation of a batch is charged on its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from graphql import ExecutionResult, GraphQLError
from strawberry.extensions import SchemaExtension

from gateway.protection.rate_limit import Budgets, record_charge
from loaders.errors import GatewayError
from schema.extensions import CostMeasure
from schema.principal import Principal


class BudgetCharge(SchemaExtension):
    """Charges what the cost limit measured (at least 1 point).

    Given the cost limit's own CostMeasure, it reads the cost the limit measured on
    validation from the measure's memo: a document is never measured twice.
    """

    def __init__(self, budgets: Budgets, cost: CostMeasure) -> None:
        self.budgets = budgets
        self.cost = cost

    async def on_execute(self) -> AsyncIterator[None]:
        context = self.execution_context
        principal = getattr(context.context, "principal", None)
        document = context.graphql_document
        if isinstance(principal, Principal) and document is not None and context.result is None:
            cost = max(1, self.cost.of(context, document))
            try:
                charge = await self.budgets.charge(principal, cost)
            except GatewayError as error:  # the storage is down and the gateway fails closed
                context.result = _refused(error)
            else:
                record_charge(charge)
                if not charge.allowed:
                    context.result = _refused(charge.refusal())
        yield


def _refused(error: GatewayError) -> ExecutionResult:
    # No path: a request error (no `data`), coded by the GatewayError it carries.
    graphql_error = GraphQLError(
        error.message, extensions=error.graphql_extensions(), original_error=error
    )
    return ExecutionResult(data=None, errors=[graphql_error])
