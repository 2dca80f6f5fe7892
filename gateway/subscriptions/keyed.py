"""A mutation sent with `extensions.idempotencyKey` over the socket (SPEC section 9): run
through its key's record as over HTTP, answered with `next` and `complete`, or `error`."""

from __future__ import annotations

from typing import Any, Protocol

from strawberry.schema.base import BaseSchema

from gateway.idempotency import Answer, Idempotency
from gateway.operations.kinds import OperationKinds
from gateway.operations.payload import formatted, payload_of
from loaders.errors import GatewayError
from schema.context import Context


class KeyedView(Protocol):
    keys: Idempotency
    kinds: OperationKinds


class SentOperation(Protocol):
    id: str
    operation_name: str | None
    variables: dict[str, Any] | None
    extensions: dict[str, Any] | None

    async def send_operation_message(self, message: dict[str, Any]) -> None: ...


async def answered_keyed(
    view: KeyedView, schema: BaseSchema, operation: SentOperation, query: str, context: Context
) -> bool:
    """Answer `operation` when it is a keyed mutation (or a mutation refused for want of a
    key); False when it is anything else, for the handler to run as usual."""
    try:
        is_mutation = view.kinds.is_mutation(query, operation.operation_name)
        keyed = view.keys.keyed(operation, query, context.principal, is_mutation=is_mutation)
    except GatewayError as refused:
        await _send_errors(operation, [formatted(refused)])
        return True
    if keyed is None:
        return False

    async def execute() -> Answer:
        result = await schema.execute(
            query,
            variable_values=operation.variables,
            context_value=context,
            operation_name=operation.operation_name,
            operation_extensions=operation.extensions,
        )
        return Answer(payload_of(result, context.request_id), 200, source=result)

    answer = await view.keys.run(context, keyed, execute)
    if "data" not in answer.payload:
        # Refused before it ran (a reused key, a request error): the protocol's `error`.
        await _send_errors(operation, answer.payload.get("errors") or [])
        return True
    payload = dict(answer.payload)
    if answer.replayed:
        # The socket has no headers: the replay is told as the batch tells it.
        payload["extensions"] = {"idempotencyReplayed": True}
    await operation.send_operation_message({"id": operation.id, "type": "next", "payload": payload})
    await operation.send_operation_message({"id": operation.id, "type": "complete"})
    return True


async def _send_errors(operation: SentOperation, errors: list[Any]) -> None:
    await operation.send_operation_message({"id": operation.id, "type": "error", "payload": errors})
