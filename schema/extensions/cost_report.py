"""`extensions.cost`: what a request cost in DynamoDB, for a client that asks for it."""

from __future__ import annotations

from typing import Any

from strawberry.extensions import SchemaExtension

from loaders.call_log import CallLog


class CostReport(SchemaExtension):
    """Answers the figures of the context's `CallLog` (where the request's bound `Dynamo`
    records every call) in `extensions.cost` when the context's `cost_requested` is set
    (header `X-Insight-Cost: 1`)."""

    def _log(self) -> CallLog | None:
        log = getattr(self.execution_context.context, "calls", None)
        return log if isinstance(log, CallLog) else None

    def get_results(self) -> dict[str, Any]:
        log = self._log()
        if log is None or not getattr(self.execution_context.context, "cost_requested", False):
            return {}
        return {"cost": log.summary()}
