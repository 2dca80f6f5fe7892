"""One operation of a socket (gateway/subscriptions/protocol.py): its id, what the trusted
documents look at, its task while it executes, and a subscription's life once it is handed
over to the hub: no task, no executing stream, only its subscriber and how its events are
sent."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol

from graphql import GraphQLError

from gateway.operations.payload import coded_errors
from gateway.operations.resume import encode, event_id
from gateway.subscriptions.timers import CLOSED_ON_SEND
from schema.live import LiveSession, Payload, Send

__all__ = ["Message", "Messenger", "SocketOperation", "sender", "well_formed"]

#: A graphql-transport-ws message, as sent on the socket.
Message = dict[str, Any]


class Messenger(Protocol):
    """What an operation uses of its socket."""

    @property
    def request_id(self) -> str: ...

    async def send_message(self, message: Message) -> None: ...

    def forget(self, operation_id: str) -> None: ...


class SocketOperation:
    """A `subscribe` message's operation, until its `complete` or `error` is sent."""

    __slots__ = (
        "completed",
        "document_id",
        "extensions",
        "id",
        "last_seen",
        "live",
        "operation_name",
        "query",
        "socket",
        "task",
        "variables",
    )

    def __init__(self, socket: Messenger, operation_id: str, payload: dict[str, Any]) -> None:
        self.socket = socket
        self.id = operation_id
        self.query: str = payload.get("query") or ""
        self.variables: dict[str, Any] | None = payload.get("variables")
        self.operation_name: str | None = payload.get("operationName")
        self.extensions: dict[str, Any] | None = payload.get("extensions")
        self.document_id: str | None = payload.get("documentId")
        self.completed = False
        self.task: asyncio.Task[None] | None = None
        #: The subscription handed over to the hub: it lives without a task until the
        #: client completes it or the socket closes.
        self.live: LiveSession | None = None
        #: The state the client holds, for a subscription whose events are named (its
        #: `subscribe` carried `extensions.lastEventId`): the one it resumed from, then
        #: each event's as it is sent.
        self.last_seen: str | None = None

    def hand_over(self, live: LiveSession) -> None:
        """The operation's execution is over and its subscriber registered: keep only
        what its `complete` needs (the id, the subscriber); the text and variables go."""
        self.live = live
        self.task = None
        self.query = ""
        self.variables = self.extensions = None
        live.query = ""
        live.variables = None

    async def send_operation_message(self, message: Message) -> None:
        """Send `message` for this operation; its last (`complete`, `error`) frees its id
        before it leaves, and nothing is sent after it."""
        if self.completed:
            return
        if message["type"] in ("complete", "error"):
            self.completed = True
            self.socket.forget(self.id)
        await self.socket.send_message(message)

    async def send_errors(self, errors: list[Any]) -> None:
        """The operation's `error` message: `errors` as the client sees them."""
        await self.send_operation_message({"id": self.id, "type": "error", "payload": errors})

    async def send_initial_errors(self, errors: list[GraphQLError]) -> None:
        # Coded (and an internal one masked and logged) as an HTTP answer's are.
        request_id = self.socket.request_id
        await self.send_errors(coded_errors(errors, pre_execution=True, request_id=request_id))


def sender(operation: SocketOperation, *, named: bool = False) -> Send:
    """How the hub sends the operation's events: a `next` message on its socket, none once
    the socket is closed (its subscriber goes with the socket's cleanup). A `named` one
    carries its state's id in `extensions.eventId`, as a multipart event does, and is not
    sent when the client holds that state already (a resume)."""

    async def send(payload: Payload) -> None:
        if named:
            state = event_id(encode(payload))
            if state == operation.last_seen:
                return
            operation.last_seen = state
            extensions = {**(payload.get("extensions") or {}), "eventId": state}
            payload = {**payload, "extensions": extensions}
        with contextlib.suppress(*CLOSED_ON_SEND):
            await operation.send_operation_message(
                {"id": operation.id, "type": "next", "payload": payload}
            )

    return send


def well_formed(payload: object) -> bool:
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
