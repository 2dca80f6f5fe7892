"""One `subscribe` of a socket run to its end, through strawberry's public `Schema.stream`: a
query or mutation answered with `next` and `complete` (a keyed mutation through its key's
record), a subscription handed over to the hub (schema.live) once its first answer is sent.

A document that does not parse or validate gets an `error` message coded as over HTTP
(GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, ...); an operation that cannot be chosen
(an unknown name, several operations and none named) an `error` coded BAD_REQUEST, the
socket staying open; an unexpected failure one masked INTERNAL_SERVER_ERROR with the request
id, its cause logged.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping
from contextlib import aclosing
from typing import Any, Protocol

from graphql import GraphQLError
from strawberry.schema.base import BaseSchema
from strawberry.schema.exceptions import CannotGetOperationTypeError
from strawberry.types import ExecutionResult
from strawberry.types.execution import PreExecutionError

from gateway.auth.tokens import TokenVerifier
from gateway.idempotency import Answer, Idempotency
from gateway.operations.gate import OperationGate
from gateway.operations.kinds import OperationKinds
from gateway.operations.operation import BadRequest
from gateway.operations.operation import Operation as RequestOperation
from gateway.operations.payload import formatted, payload_of
from gateway.operations.resume import EXTENSION, given_event_id
from gateway.subscriptions.connection import Connection
from gateway.subscriptions.keepalive import Keepalive
from gateway.subscriptions.operation import SocketOperation, sender
from gateway.subscriptions.principal_sockets import PrincipalSockets
from gateway.subscriptions.timers import CLOSED_ON_SEND
from loaders.errors import GatewayError
from schema.clock import Clock
from schema.context import Context, LiveSubscriptions
from schema.live import LiveHub, LiveSession

__all__ = ["LiveView", "OperationSocket", "run_operation"]

logger = logging.getLogger("gateway.subscriptions")


class LiveView(Protocol):
    """What the protocol uses of the GraphQL view (gateway/subscriptions/view.py)."""

    schema: BaseSchema
    clock: Clock
    verifier: TokenVerifier
    gate: OperationGate
    count_errors: Callable[[Iterable[Mapping[str, Any]]], None] | None
    keys: Idempotency
    kinds: OperationKinds
    #: Seconds a socket has to send `connection_init` (else 4408).
    init_wait_seconds: float
    #: Operations at once on one socket.
    max_operations: int

    @property
    def keepalive(self) -> Keepalive | None: ...

    @property
    def principal_sockets(self) -> PrincipalSockets: ...

    @property
    def max_frame_bytes(self) -> int: ...

    def operation_context(
        self, connection: Connection, live: LiveSubscriptions | None = None
    ) -> Context: ...

    def live_hub(self, connection: Connection) -> LiveHub: ...


class OperationSocket(Protocol):
    """What an operation uses of its socket (gateway/subscriptions/protocol.py)."""

    @property
    def view(self) -> LiveView: ...

    @property
    def connection(self) -> Connection: ...

    @property
    def operations(self) -> dict[str, SocketOperation]: ...

    @property
    def request_id(self) -> str: ...

    def forget(self, operation_id: str) -> None: ...


async def run_operation(socket: OperationSocket, operation: SocketOperation) -> None:
    view = socket.view
    connection = socket.connection
    assert connection.principal is not None
    context: Context | None = None
    live: LiveSession | None = None
    sent = RequestOperation(
        query=operation.query or None,
        variables=operation.variables,
        operation_name=operation.operation_name,
        extensions=operation.extensions,
        document_id=operation.document_id,
    )
    try:
        try:
            query = view.gate.query_of(sent, connection.principal)
            if query is None or not query.strip():
                raise BadRequest("The subscribe message has no GraphQL query")
            extensions = operation.extensions or {}
            operation.last_seen = given_event_id(extensions.get(EXTENSION))
        except GatewayError as error:
            await operation.send_errors([formatted(error)])
            return
        # A `subscribe` with `extensions.lastEventId` (an id, or null for a first one)
        # gets its events named; with an id, it resumes (gateway/operations/resume.py).
        live = LiveSession(
            view.live_hub(connection),
            query,
            operation.operation_name,
            operation.variables,
            sender(operation, named=EXTENSION in extensions),
            resuming=operation.last_seen is not None,
        )
        context = view.operation_context(connection, live)
        if await _answered_keyed(view, operation, query, context):
            return
        results = await view.schema.stream(
            query,
            variable_values=operation.variables,
            context_value=context,
            operation_name=operation.operation_name,
            operation_extensions=operation.extensions,
        )
        async with aclosing(results):
            first = True
            async for result in results:
                if first and isinstance(result, PreExecutionError):
                    await _refused(operation, result)
                    return
                if not isinstance(result, ExecutionResult):
                    refused = GraphQLError("@defer and @stream are not served over the socket")
                    await operation.send_initial_errors([refused])
                    return
                answer = {"id": operation.id, "type": "next", "payload": _payload(result)}
                await operation.send_operation_message(answer)
                first = False
        if live.subscriber is not None and socket.operations.get(operation.id) is operation:
            operation.hand_over(live)
            return
        await operation.send_operation_message({"id": operation.id, "type": "complete"})
    except CLOSED_ON_SEND:
        # The client went away (or its socket was closed while an answer was sent).
        return
    except GraphQLError as error:
        # A document that does not parse: strawberry's parser cache raises it from the
        # stream (over HTTP the same error is answered GRAPHQL_PARSE_FAILED).
        with contextlib.suppress(*CLOSED_ON_SEND):
            await operation.send_initial_errors([error])
        socket.forget(operation.id)
    except Exception:
        logger.exception("subscription %s failed (request %s)", operation.id, socket.request_id)
        internal = GatewayError(extensions={"requestId": socket.request_id})
        with contextlib.suppress(*CLOSED_ON_SEND):
            await operation.send_errors([formatted(internal)])
        socket.forget(operation.id)
    finally:
        if context is not None:
            context.reads.release()
        if live is not None and operation.live is not live:
            live.unsubscribe()  # not handed over: cancelled, failed or completed


async def _refused(operation: SocketOperation, result: PreExecutionError) -> None:
    """Refused before it ran. An operation that cannot be chosen is the operation's error
    (BAD_REQUEST, HTTP's 400), not the socket's."""
    assert result.errors
    cause = result.errors[0].original_error
    if isinstance(cause, CannotGetOperationTypeError):
        await operation.send_errors([formatted(BadRequest(cause.as_http_error_reason()))])
        return
    await operation.send_initial_errors(result.errors)


def _payload(result: ExecutionResult) -> dict[str, Any]:
    payload: dict[str, Any] = {"data": result.data}
    if result.errors:
        payload["errors"] = [error.formatted for error in result.errors]
    if result.extensions:
        payload["extensions"] = result.extensions
    return payload


async def _answered_keyed(
    view: LiveView, operation: SocketOperation, query: str, context: Context
) -> bool:
    """Answer `operation` when it is a mutation sent with `extensions.idempotencyKey` (SPEC
    section 9: through its key's record, as over HTTP), or a mutation refused for want of a
    key; False when it is anything else, for the handler to run as usual."""
    try:
        is_mutation = view.kinds.is_mutation(query, operation.operation_name)
        keyed = view.keys.keyed(operation, query, context.principal, is_mutation=is_mutation)
    except GatewayError as refused:
        await operation.send_errors([formatted(refused)])
        return True
    if keyed is None:
        return False

    async def execute() -> Answer:
        result = await view.schema.execute(
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
        await operation.send_errors(answer.payload.get("errors") or [])
        return True
    payload = dict(answer.payload)
    if answer.replayed:
        # The socket has no headers: the replay is told as the batch tells it.
        payload["extensions"] = {"idempotencyReplayed": True}
    await operation.send_operation_message({"id": operation.id, "type": "next", "payload": payload})
    await operation.send_operation_message({"id": operation.id, "type": "complete"})
    return True
