"""The graphql-transport-ws protocol on /graphql: strawberry's handler, with the gateway's
authentication, trusted documents, a fresh Context per operation, keepalive pings, and the
token's expiry.

Close codes (the protocol's, as the npm `graphql-ws` library reads them):
4400 a message that is not the protocol's (not a JSON object, unknown type, bad JSON, no id
or one not a string), 4401 no valid token at `connection_init`, a `subscribe` before the
acknowledgement, or the token expired; 4408 no `connection_init` in time; 4409 a second
operation under an id in use; 4429 a second `connection_init`, or one whose principal holds
its maximum of sockets (INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS_PER_PRINCIPAL); 1009 a frame over
the size bound. Each is logged, one line, and counted in `gateway_graphql_errors` under
the code it means (gateway/subscriptions/close_codes.py). An operation that cannot be chosen
(an unknown name, several operations and none named) gets an `error` message; the socket
stays open.
Beyond `INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION` operations at once, a `subscribe` gets an
`error` message (as strawberry does) and the socket stays open.

A document that does not parse or validate gets an `error` message coded as over HTTP
(GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, ...); an unexpected failure one masked
INTERNAL_SERVER_ERROR with the request id, its cause logged. Every error sent (in an `error`
message or a `next` one's `errors`) is counted by the view's `count_errors`, the function
that counts HTTP's answers (`gateway_graphql_errors`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from graphql import GraphQLError, GraphQLFormattedError
from starlette.websockets import WebSocketDisconnected as SocketClosedOnSend
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.schema.exceptions import CannotGetOperationTypeError

# The handler's hooks overridden here (handle_message, handle_connection_init,
# handle_subscribe, handle_complete, run_operation, the init timeout, the private
# `_handle_pre_execution_error`) and its private `_OperationStreamClosed` and
# `_send_result_stream` are strawberry-graphql 0.341.2's (pinned in pyproject.toml; the
# version itself by tests/gateway/subscriptions/test_protocol_frames.py); the tests in
# tests/gateway/subscriptions/ hold each close code and message to them.
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
    _OperationStreamClosed,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    CompleteMessage,
    ConnectionInitMessage,
    ErrorMessage,
    Message,
    SubscribeMessage,
)
from strawberry.types.execution import PreExecutionError
from strawberry.utils.aio import aclosing

from gateway.auth.tokens import TokenVerifier, Unauthenticated
from gateway.idempotency import Idempotency
from gateway.observability.subscription_metrics import SubscriptionMetrics
from gateway.operations.gate import OperationGate
from gateway.operations.kinds import OperationKinds
from gateway.operations.operation import BadRequest
from gateway.operations.operation import Operation as RequestOperation
from gateway.operations.payload import formatted
from gateway.subscriptions.close_codes import (
    BAD_REQUEST,
    INIT_TIMEOUT,
    SUBSCRIBER_EXISTS,
    TOO_MANY_INIT,
    TRY_AGAIN_LATER,
    UNAUTHORIZED,
)
from gateway.subscriptions.connection import Connection
from gateway.subscriptions.keepalive import Keepalive
from gateway.subscriptions.keyed import answered_keyed
from gateway.subscriptions.operation import LiveOperation, sender
from gateway.subscriptions.principal_sockets import PrincipalSockets
from gateway.subscriptions.timers import SocketTimer
from loaders.errors import GatewayError
from schema.clock import Clock
from schema.context import Context, LiveSubscriptions
from schema.errors import INTERNAL_MESSAGE
from schema.live import LiveHub, LiveSession

logger = logging.getLogger("gateway.subscriptions")

#: A second `connection_init`, or a principal over its sockets.
TOO_MANY = TOO_MANY_INIT
#: A close reason is at most 123 bytes.
_REASON_CHARS = 100


class LiveView(Protocol):
    """What the handler uses of the GraphQL view (gateway/http/graphql_view.py)."""

    clock: Clock
    verifier: TokenVerifier
    gate: OperationGate
    keepalive: Keepalive | None
    count_errors: Callable[[Iterable[Mapping[str, Any]]], None] | None
    keys: Idempotency
    kinds: OperationKinds
    principal_sockets: PrincipalSockets

    def operation_context(
        self, connection: Connection, live: LiveSubscriptions | None = None
    ) -> Context: ...

    def live_hub(self, connection: Connection) -> LiveHub: ...


class LiveTransport(BaseGraphQLTransportWSHandler[Connection, None]):
    view: Any
    context: Connection

    async def handle(self) -> None:
        self._timer = SocketTimer()
        #: The `sub` this socket is counted for (PrincipalSockets), from `connection_init`.
        self._counted_for: str | None = None
        #: Its slot among the keepalive's, once acknowledged.
        self._keepalive_slot: int | None = None
        view: LiveView = self.view
        # Set by `create_app`, the one app that serves the socket.
        metrics: SubscriptionMetrics = self.context.websocket.app.state.subscription_metrics
        metrics.connections.inc()
        try:
            await super().handle()
        finally:
            if self._counted_for is not None:
                view.principal_sockets.release(self._counted_for)
            if self._keepalive_slot is not None and view.keepalive is not None:
                view.keepalive.leave(self, self._keepalive_slot)
            metrics.connections.dec()
            await self._timer.cancel()

    async def ping(self) -> None:
        """The keepalive's ping (gateway/subscriptions/keepalive.py)."""
        if self.connection_acknowledged:
            await self.send_message({"type": "ping"})

    def on_request_accepted(self) -> None:
        # strawberry starts a task sleeping until the `connection_init` deadline (and keeps
        # it, cancelled, with its frames, for the socket's life): a loop timer instead.
        self._timer.at(self.connection_init_wait_timeout.total_seconds(), self._init_timed_out)

    async def send_message(self, message: Message) -> None:
        await super().send_message(message)
        view: LiveView = self.view
        if view.count_errors is None:
            return
        if message["type"] == "error":
            view.count_errors(message["payload"])
        elif message["type"] == "next" and (errors := message["payload"].get("errors")):
            view.count_errors(errors)

    async def close(self, code: int, reason: str) -> None:
        logger.info("closing a WebSocket (%s): %d %s", self.context.peer, code, reason)
        with contextlib.suppress(RuntimeError, WebSocketDisconnected):
            await self.websocket.close(code=code, reason=reason[:_REASON_CHARS])

    async def _init_timed_out(self) -> None:
        if not self.connection_init_received:
            self.connection_timed_out = True
            await self.close(INIT_TIMEOUT, "Connection initialisation timeout")

    async def handle_invalid_message(self, error_message: str) -> None:
        await self.close(BAD_REQUEST, error_message)

    async def handle_message(self, message: Message) -> None:
        # strawberry 0.341.2 reads `message["type"]` and catches only KeyError: a frame of
        # `[]`, `42`, `"x"` or `null` raised TypeError out of the handler (the server's
        # "Exception in ASGI application", the socket dropped with 1006), before any token.
        if not isinstance(message, dict):
            await self.handle_invalid_message("A message must be a JSON object")
            return
        await super().handle_message(message)

    async def handle_complete(self, message: CompleteMessage) -> None:
        # strawberry looks the id up in a dict: an object id (unhashable) raised TypeError.
        if not isinstance(message["id"], str):
            await self.handle_invalid_message("Invalid complete message")
            return
        await super().handle_complete(message)

    async def cleanup_operation(self, operation_id: str) -> None:
        # strawberry cancels the operation's task; a subscription handed over to the hub
        # has none: it is unsubscribed.
        operation = self.operations.get(operation_id)
        if isinstance(operation, LiveOperation) and operation.live is not None:
            del self.operations[operation_id]
            operation.live.unsubscribe()
            return
        await super().cleanup_operation(operation_id)

    async def _handle_pre_execution_error(
        self, operation: Operation[Connection, None], result: PreExecutionError
    ) -> None:
        # strawberry closes the socket (4400) when the document holds no operation of the
        # name sent, or several and no name; it is the operation's error, not the
        # socket's: an `error` message for its id, coded as HTTP's 400 (BAD_REQUEST).
        assert result.errors
        cause = result.errors[0].original_error
        if isinstance(cause, CannotGetOperationTypeError):
            error = BadRequest(cause.as_http_error_reason())
            await operation.send_operation_message(_error_message(operation.id, error))
            return
        await operation.send_initial_errors(result.errors)

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        if self.connection_timed_out:
            return
        self._timer.stop()
        payload = message.get("payload") or {}
        if not isinstance(payload, dict):
            await self.close(BAD_REQUEST, "Invalid connection init payload")
            return
        if self.connection_init_received:
            await self.close(TOO_MANY_INIT, "Too many initialisation requests")
            return
        self.connection_init_received = True
        connection = self.context
        given = payload.get("Authorization", payload.get("authorization"))
        header = connection.websocket.headers.get("authorization")
        # The upgrade's headers are read for the last time: the scope (and starlette's
        # view of it) let them go, for the socket's life.
        connection.websocket.scope["headers"].clear()
        view: LiveView = self.view
        try:
            authorization = given if isinstance(given, str) else header
            principal, expires_at = view.verifier.verify_session(authorization)
        except Unauthenticated as error:
            await self.close(UNAUTHORIZED, f"Unauthorized: {error.message}")
            return
        if not view.principal_sockets.acquire(principal.sub):
            limit = view.principal_sockets.maximum
            await self.close(TOO_MANY, f"Too many sockets open for this user (at most {limit})")
            return
        self._counted_for = principal.sub
        if connection.slot is not None and not connection.slot.authenticate():
            await self.close(TRY_AGAIN_LATER, "This replica holds its maximum of sockets: retry")
            return
        connection.principal = principal
        connection.expires_at = expires_at
        delay = max(0.0, expires_at - view.clock.now().timestamp())
        self._timer.at(delay, self._expired)
        await self.send_message({"type": "connection_ack"})
        self.connection_acknowledged = True
        if view.keepalive is not None:
            self._keepalive_slot = view.keepalive.join(self)

    async def _expired(self) -> None:
        await self.close(UNAUTHORIZED, "Unauthorized: the bearer token has expired")

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        if not self.connection_acknowledged:
            await self.close(UNAUTHORIZED, "Unauthorized: subscribe before connection_ack")
            return
        operation_id = message["id"]
        if not isinstance(operation_id, str) or not _well_formed(message["payload"]):
            await self.close(BAD_REQUEST, "Invalid subscribe message")
            return
        if operation_id in self.operations:
            await self.close(SUBSCRIBER_EXISTS, f"Subscriber for {operation_id} already exists")
            return
        limit = self.max_subscriptions_per_connection
        if limit is not None and len(self.operations) >= limit:
            error = BadRequest(
                f"Subscription limit reached: at most {limit} operations at once on a connection"
            )
            await self.send_message(_error_message(operation_id, error))
            return
        operation = LiveOperation(self, message)
        operation.task = asyncio.create_task(self.run_operation(operation))
        operation.task.add_done_callback(self._task_done)
        self.operations[operation_id] = operation

    async def run_operation(self, operation: Operation[Connection, None]) -> None:
        assert isinstance(operation, LiveOperation)
        view: LiveView = self.view
        connection = self.context
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
            except GatewayError as error:
                await operation.send_operation_message(_error_message(operation.id, error))
                return

            live = LiveSession(
                view.live_hub(connection),
                query,
                operation.operation_name,
                operation.variables,
                sender(operation),
            )
            context = view.operation_context(connection, live)
            if await answered_keyed(view, self.schema, operation, query, context):
                return
            result_source = await self.schema.stream(
                query,
                variable_values=operation.variables,
                context_value=context,
                operation_name=operation.operation_name,
                operation_extensions=operation.extensions,
            )
            async with aclosing(result_source):
                await self._send_result_stream(operation, result_source)
            if live.subscriber is not None and self.operations.get(operation.id) is operation:
                operation.hand_over(live)
                return
            await operation.send_operation_message(
                CompleteMessage(id=operation.id, type="complete")
            )
        except (_OperationStreamClosed, WebSocketDisconnected, SocketClosedOnSend):
            # The client went away (or its socket was closed while an event was sent).
            return
        except GraphQLError as error:
            # A document that does not parse: strawberry's parser cache raises it from the
            # stream (over HTTP the same error is answered GRAPHQL_PARSE_FAILED).
            with contextlib.suppress(RuntimeError, WebSocketDisconnected):
                await operation.send_initial_errors([error])
            self.operations.pop(operation.id, None)
        except Exception:
            logger.exception(
                "subscription %s failed (request %s)", operation.id, connection.request_id
            )
            internal = GatewayError(
                INTERNAL_MESSAGE, extensions={"requestId": connection.request_id}
            )
            with contextlib.suppress(RuntimeError, WebSocketDisconnected):
                await operation.send_operation_message(_error_message(operation.id, internal))
            self.operations.pop(operation.id, None)
        finally:
            if context is not None:
                context.reads.release()
            if live is not None and operation.live is not live:
                live.unsubscribe()  # not handed over: cancelled, failed or completed


def _well_formed(payload: object) -> bool:
    """A subscribe payload as graphql-transport-ws defines it (`documentId` beside `query`
    for the trusted documents)."""
    if not isinstance(payload, dict):
        return False
    kinds = {
        "query": str,
        "operationName": str,
        "variables": dict,
        "extensions": dict,
        "documentId": str,
    }
    return all(
        payload.get(name) is None or isinstance(payload[name], kind) for name, kind in kinds.items()
    )


def _error_message(operation_id: str, error: GatewayError) -> ErrorMessage:
    shown: GraphQLFormattedError = formatted(error)  # type: ignore[assignment]
    return ErrorMessage(id=operation_id, type="error", payload=[shown])
