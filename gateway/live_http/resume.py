"""A stream picked up where its client left it: the id of the state it last saw, and a
subscription that reads each user's current state at once, so that a state changed while
the client was away arrives first, and an unchanged one is not sent at all (the stream
skips an event naming the state the client holds: gateway/live_http/stream.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

from gateway.http.http_problem import HttpProblem
from gateway.live_http.framing import StreamKind
from gateway.operations.operation import BadRequest, Operation
from schema.live import HandedOver, LiveHub, LiveSession, Send
from schema.principal import Principal

__all__ = ["EXTENSION", "HEADER", "ResumingSession", "last_event_id"]

#: What an EventSource sends back on its reconnect (the SSE specification's header).
HEADER = "last-event-id"
#: Where a client that sets no header says it (multipart; SSE too, by choice).
EXTENSION = "lastEventId"
#: An event id is 12 characters (framing.event_id); anything far longer is no id of ours.
MAX_CHARS = 64


def last_event_id(headers: Mapping[str, str], operation: Operation, kind: StreamKind) -> str | None:
    """The id of the state the client last saw: SSE's `Last-Event-ID` header, else the
    operation's `extensions.lastEventId`; None for a first subscribe."""
    given: object = headers.get(HEADER) if kind == "sse" else None
    if given is None and operation.extensions is not None:
        given = operation.extensions.get(EXTENSION)
    if given is None or given == "":
        return None
    if not isinstance(given, str) or len(given) > MAX_CHARS or not given.isprintable():
        raise HttpProblem(
            400, BadRequest(f"{EXTENSION} (Last-Event-ID) must be an event id this gateway sent")
        )
    return given


class ResumingSession(LiveSession):
    """The hub's session for one stream; a resumed one reads its users' current state at
    once (`initial`), whatever the operation asked, to compare it with the client's."""

    __slots__ = ("resuming",)

    def __init__(
        self,
        hub: LiveHub,
        query: str,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
        send: Send,
        *,
        resuming: bool,
    ) -> None:
        # Interned: the hub's group of each user keeps the text, and a fleet of frontends
        # sends the same few documents.
        super().__init__(hub, sys.intern(query), operation_name, variables, send)
        self.resuming = resuming

    def subscribe(
        self, *, principal: Principal, user_ids: Iterable[str], initial: bool, cost: int
    ) -> HandedOver:
        return super().subscribe(
            principal=principal, user_ids=user_ids, initial=initial or self.resuming, cost=cost
        )
