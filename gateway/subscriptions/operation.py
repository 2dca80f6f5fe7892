"""One operation of a socket (gateway/subscriptions/transport.py): strawberry's, with what
the trusted documents look at, and a subscription's life once it is handed over to the hub:
no task, no executing stream, only its subscriber and how its events are sent."""

from __future__ import annotations

import contextlib
from typing import Any

from graphql import GraphQLError
from starlette.websockets import WebSocketDisconnected as SocketClosedOnSend
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ErrorMessage,
    NextMessage,
    NextMessagePayload,
    SubscribeMessage,
)

from gateway.operations.payload import coded_errors
from gateway.subscriptions.connection import Connection
from schema.live import LiveSession, Payload, Send

__all__ = ["LiveOperation", "sender"]


class LiveOperation(Operation[Connection, None]):
    """strawberry's operation, with what the trusted documents look at, and once its
    subscription is handed over to the hub, its subscriber (and no task)."""

    __slots__ = ("document_id", "extensions", "live")

    def __init__(
        self,
        handler: BaseGraphQLTransportWSHandler[Connection, None],
        message: SubscribeMessage,
    ) -> None:
        payload: dict[str, Any] = dict(message["payload"])
        super().__init__(
            handler,
            message["id"],
            payload.get("query") or "",
            payload.get("variables"),
            payload.get("operationName"),
        )
        self.extensions: dict[str, Any] | None = payload.get("extensions")
        self.document_id: str | None = payload.get("documentId")
        #: The subscription handed over to the hub: it lives without a task until the
        #: client completes it or the socket closes.
        self.live: LiveSession | None = None

    def hand_over(self, live: LiveSession) -> None:
        """The operation's execution is over and its subscriber registered: keep only
        what its `complete` needs (the id, the subscriber); the text and variables go."""
        self.live = live
        self.task = None
        self.query = ""
        self.variables = self.extensions = None
        live.query = ""
        live.variables = None

    async def send_initial_errors(self, errors: list[GraphQLError]) -> None:
        # Coded (and an internal one masked and logged) as an HTTP answer's are.
        connection: Connection = self.handler.context
        shown = coded_errors(errors, pre_execution=True, request_id=connection.request_id)
        await self.send_operation_message(
            ErrorMessage(id=self.id, type="error", payload=shown)  # type: ignore[typeddict-item]
        )


def sender(operation: LiveOperation) -> Send:
    """How the hub sends the operation's events: a `next` message on its socket, none once
    the socket is closed (its subscriber goes with the socket's cleanup)."""

    async def send(payload: Payload) -> None:
        answer: NextMessagePayload = payload  # type: ignore[assignment]
        with contextlib.suppress(WebSocketDisconnected, SocketClosedOnSend):
            await operation.send_operation_message(
                NextMessage(id=operation.id, type="next", payload=answer)
            )

    return send
