"""The graphql-transport-ws protocol on /graphql, the gateway's own, on starlette's WebSocket:
authentication at `connection_init` (or the upgrade's header), a token renewed in band on a
`ping`, trusted documents, a fresh Context per operation, keepalive pings, and the token's
expiry. Operations run in gateway/subscriptions/execution.py.

Close codes (the protocol's, as the npm `graphql-ws` library reads them):
4400 a message that is not the protocol's (not a JSON object, unknown type, bad JSON, no id
or one not a string), 4401 no valid token at `connection_init`, a `subscribe` before the
acknowledgement, the token expired, or a renewal whose token is invalid or names another
`sub`; 4406 no graphql-transport-ws among the offered subprotocols; 4408 no
`connection_init` in time; 4409 a second operation under an id in use; 4429 a second
`connection_init`, or one whose principal holds its maximum of sockets
(INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS_PER_PRINCIPAL); 1013 the replica filled while the socket
waited for its token; 1009 a frame over the size bound. Each is logged, one line, and
counted in `gateway_graphql_errors` under the code it means (close_codes.py).

Beyond `INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION` operations at once, a `subscribe` gets an
`error` message and the socket stays open; a completed operation's place is free at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson
from starlette.websockets import WebSocketDisconnect, WebSocketState

from gateway.auth.tokens import Unauthenticated
from gateway.observability.subscription_metrics import SubscriptionMetrics
from gateway.operations.operation import BadRequest
from gateway.operations.payload import formatted
from gateway.operations.unicode_text import holds_lone_surrogate
from gateway.subscriptions.close_codes import (
    BAD_REQUEST,
    ERROR_CODES,
    INIT_TIMEOUT,
    MESSAGE_TOO_BIG,
    SUBSCRIBER_EXISTS,
    TOO_MANY_INIT,
    TRY_AGAIN_LATER,
    UNAUTHORIZED,
)
from gateway.subscriptions.connection import Connection
from gateway.subscriptions.execution import LiveView, run_operation
from gateway.subscriptions.operation import Message, SocketOperation, well_formed
from gateway.subscriptions.timers import CLOSED_ON_SEND, SocketTimer

__all__ = ["SocketProtocol"]

logger = logging.getLogger("gateway.subscriptions")

#: A close reason is at most 123 bytes.
_REASON_CHARS = 100


class SocketProtocol:
    """One accepted socket speaking graphql-transport-ws, from its first frame to its close."""

    __slots__ = (
        "acknowledged",
        "connection",
        "counted_for",
        "init_received",
        "keepalive_slot",
        "operations",
        "timed_out",
        "timer",
        "view",
    )

    def __init__(self, view: LiveView, connection: Connection) -> None:
        self.view = view
        self.connection = connection
        self.timer = SocketTimer()
        self.init_received = False
        self.acknowledged = False
        self.timed_out = False
        #: The operations under way (and the subscriptions handed over), by id.
        self.operations: dict[str, SocketOperation] = {}
        #: The `sub` this socket is counted for (PrincipalSockets), from `connection_init`.
        self.counted_for: str | None = None
        #: Its slot among the keepalive's, once acknowledged.
        self.keepalive_slot: int | None = None

    @property
    def request_id(self) -> str:
        return self.connection.request_id

    async def serve(self) -> None:
        """Read the socket's messages until it closes, then end its operations."""
        view = self.view
        # Set by `create_app`, the one app that serves the socket.
        metrics: SubscriptionMetrics = self.connection.websocket.app.state.subscription_metrics
        metrics.connections.inc()
        self.timer.at(view.init_wait_seconds, self._init_timed_out)
        try:
            with contextlib.suppress(*CLOSED_ON_SEND):
                await self._read()
        finally:
            await self._shutdown()
            if self.counted_for is not None:
                view.principal_sockets.release(self.counted_for)
            if self.keepalive_slot is not None and view.keepalive is not None:
                view.keepalive.leave(self, self.keepalive_slot)
            metrics.connections.dec()
            await self.timer.cancel()

    async def _read(self) -> None:
        websocket = self.connection.websocket
        while websocket.application_state != WebSocketState.DISCONNECTED:
            # Each frame is read in `_frame`: its text and message go with it, rather than
            # stay held (the last one, a `subscribe` with its document) while the socket
            # waits for the next.
            if not await self._frame(await websocket.receive()):
                return

    async def _frame(self, event: MutableMapping[str, Any]) -> bool:
        """Handle one ASGI event; False when the socket is done with."""
        if event["type"] == "websocket.disconnect":
            return False
        text = event.get("text")
        if text is None:
            await self.close(BAD_REQUEST, "WebSocket message type must be text")
            return False
        limit = self.view.max_frame_bytes
        # Characters never outnumber bytes: encode only when it could be too big.
        if len(text) * 4 > limit and len(text.encode("utf-8")) > limit:
            await self.close(MESSAGE_TOO_BIG, "Message too big")
            return False
        try:
            message = json.loads(text)
        except ValueError:
            await self.close(BAD_REQUEST, "WebSocket message must be valid JSON")
            return False
        if holds_lone_surrogate(message):
            # Refused at the boundary, as over HTTP: no text past it holds one.
            await self.close(BAD_REQUEST, "A message must be Unicode text")
            return False
        await self._handle(message)
        return True

    async def _handle(self, message: object) -> None:
        if not isinstance(message, dict):
            await self.close(BAD_REQUEST, "A message must be a JSON object")
            return
        if "type" not in message:
            await self.close(BAD_REQUEST, "Failed to parse message")
            return
        kind = message["type"]
        handler = self._handlers().get(kind) if isinstance(kind, str) else None
        if handler is None:
            await self.close(BAD_REQUEST, f"Unknown message type: {kind}")
            return
        await handler(message)

    def _handlers(self) -> dict[str, Callable[[dict[str, Any]], Awaitable[None]]]:
        return {
            "connection_init": self._connection_init,
            "ping": self._ping,
            "pong": self._pong,
            "subscribe": self._subscribe,
            "complete": self._complete,
        }

    async def send_message(self, message: Message) -> None:
        """Send `message`; the errors of an `error` or a `next` are counted as HTTP's are."""
        # orjson, as HTTP: a warm answer's kept parts are orjson Fragments (schema/execution).
        await self.connection.websocket.send_text(orjson.dumps(message).decode())
        count_errors = self.view.count_errors
        if count_errors is None:
            return
        if message["type"] == "error":
            count_errors(message["payload"])
        elif message["type"] == "next" and (errors := message["payload"].get("errors")):
            count_errors(errors)

    async def ping(self) -> None:
        """The keepalive's ping (gateway/subscriptions/keepalive.py)."""
        if self.acknowledged:
            await self.send_message({"type": "ping"})

    async def close(self, code: int, reason: str) -> None:
        """Close the socket: one log line, and a refusal counted under its error code
        before the close frame leaves (a client that reads /metrics once it sees the close
        finds it counted); a socket already closed is told nothing."""
        websocket = self.connection.websocket
        if websocket.application_state == WebSocketState.DISCONNECTED:
            return
        logger.info("closing a WebSocket (%s): %d %s", self.connection.peer, code, reason)
        error_code = ERROR_CODES.get(code)
        if error_code is not None and self.view.count_errors is not None:
            self.view.count_errors([{"message": reason, "extensions": {"code": error_code}}])
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await websocket.close(code=code, reason=reason[:_REASON_CHARS])

    async def _init_timed_out(self) -> None:
        if not self.init_received:
            self.timed_out = True
            await self.close(INIT_TIMEOUT, "Connection initialisation timeout")

    async def _connection_init(self, message: dict[str, Any]) -> None:
        if self.timed_out:
            return
        self.timer.stop()
        payload = message.get("payload") or {}
        if not isinstance(payload, dict):
            await self.close(BAD_REQUEST, "Invalid connection init payload")
            return
        if self.init_received:
            await self.close(TOO_MANY_INIT, "Too many initialisation requests")
            return
        self.init_received = True
        connection = self.connection
        view = self.view
        given = payload.get("Authorization", payload.get("authorization"))
        header = connection.websocket.headers.get("authorization")
        # The upgrade's headers are read for the last time: the scope (and starlette's
        # view of it) let them go, for the socket's life.
        connection.websocket.scope["headers"].clear()
        try:
            authorization = given if isinstance(given, str) else header
            principal, expires_at = view.verifier.verify_session(authorization)
        except Unauthenticated as error:
            await self.close(UNAUTHORIZED, f"Unauthorized: {error.message}")
            return
        if not view.principal_sockets.acquire(principal.sub):
            limit = view.principal_sockets.maximum
            await self.close(
                TOO_MANY_INIT, f"Too many sockets open for this user (at most {limit})"
            )
            return
        self.counted_for = principal.sub
        if connection.slot is not None and not connection.slot.authenticate():
            await self.close(TRY_AGAIN_LATER, "This replica holds its maximum of sockets: retry")
            return
        connection.principal = principal
        self._expire_at(expires_at)
        await self.send_message({"type": "connection_ack"})
        self.acknowledged = True
        if view.keepalive is not None:
            self.keepalive_slot = view.keepalive.join(self)

    def _expire_at(self, expires_at: float) -> None:
        delay = max(0.0, expires_at - self.view.clock.now().timestamp())
        self.timer.at(delay, self._expired)

    async def _expired(self) -> None:
        await self.close(UNAUTHORIZED, "Unauthorized: the bearer token has expired")

    async def _ping(self, message: dict[str, Any]) -> None:
        payload = message.get("payload")
        given = payload.get("Authorization") if isinstance(payload, dict) else None
        if given is not None and self.acknowledged and not await self._renewed(given):
            return
        await self.send_message({"type": "pong"})

    async def _renewed(self, given: object) -> bool:
        """A token renewed in band (docs/subscriptions.md): for the socket's own `sub`, its
        expiry becomes the socket's; another `sub`, or an invalid token, closes with 4401."""
        principal = self.connection.principal
        assert principal is not None
        try:
            renewed, expires_at = self.view.verifier.verify_session(
                given if isinstance(given, str) else None
            )
        except Unauthenticated as error:
            await self.close(UNAUTHORIZED, f"Unauthorized: {error.message}")
            return False
        if renewed.sub != principal.sub:
            await self.close(UNAUTHORIZED, "Unauthorized: a renewed token must name the same sub")
            return False
        self.connection.principal = renewed
        self._expire_at(expires_at)
        return True

    async def _pong(self, message: dict[str, Any]) -> None:
        return

    async def _subscribe(self, message: dict[str, Any]) -> None:
        if not self.acknowledged:
            await self.close(UNAUTHORIZED, "Unauthorized: subscribe before connection_ack")
            return
        if "id" not in message or "payload" not in message:
            await self.close(BAD_REQUEST, "Failed to parse message")
            return
        operation_id = message["id"]
        payload = message["payload"]
        if not isinstance(operation_id, str) or not well_formed(payload):
            await self.close(BAD_REQUEST, "Invalid subscribe message")
            return
        if operation_id in self.operations:
            await self.close(SUBSCRIBER_EXISTS, f"Subscriber for {operation_id} already exists")
            return
        limit = self.view.max_operations
        if len(self.operations) >= limit:
            error = BadRequest(
                f"Subscription limit reached: at most {limit} operations at once on a connection"
            )
            await self.send_message(
                {"id": operation_id, "type": "error", "payload": [formatted(error)]}
            )
            return
        operation = SocketOperation(self, operation_id, payload)
        self.operations[operation_id] = operation
        operation.task = asyncio.create_task(run_operation(self, operation))
        operation.task.add_done_callback(_retrieved)

    async def _complete(self, message: dict[str, Any]) -> None:
        if "id" not in message:
            await self.close(BAD_REQUEST, "Failed to parse message")
            return
        if not isinstance(message["id"], str):
            await self.close(BAD_REQUEST, "Invalid complete message")
            return
        self.end_operation(message["id"])

    def forget(self, operation_id: str) -> None:
        """The operation's last message is being sent: its id is free again."""
        self.operations.pop(operation_id, None)

    def end_operation(self, operation_id: str) -> None:
        """The client completed it (or the socket closed): a subscription handed over to
        the hub is unsubscribed; one still executing has its task cancelled."""
        operation = self.operations.pop(operation_id, None)
        if operation is None:
            return
        if operation.live is not None:
            operation.live.unsubscribe()
        elif operation.task is not None:
            operation.task.cancel()

    async def _shutdown(self) -> None:
        tasks = [operation.task for operation in self.operations.values() if operation.task]
        for operation_id in list(self.operations):
            self.end_operation(operation_id)
        # Let the cancelled tasks run their `finally` (each releases its reads).
        for task in tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task


def _retrieved(task: asyncio.Task[None]) -> None:
    """An operation's task is done: its exception (already logged) is retrieved."""
    if not task.cancelled():
        task.exception()
