"""A live HTTP stream's resume: the id of the state its client last saw, from SSE's
`Last-Event-ID` header or the operation's `extensions.lastEventId` (the ids and the resuming
subscription are shared with the socket: gateway/operations/resume.py)."""

from __future__ import annotations

from collections.abc import Mapping

from gateway.http.http_problem import HttpProblem
from gateway.live_http.framing import StreamKind
from gateway.operations.operation import Operation
from gateway.operations.resume import EXTENSION, ResumingSession, given_event_id
from loaders.errors import GatewayError

__all__ = ["EXTENSION", "HEADER", "ResumingSession", "last_event_id"]

#: What an EventSource sends back on its reconnect (the SSE specification's header).
HEADER = "last-event-id"


def last_event_id(headers: Mapping[str, str], operation: Operation, kind: StreamKind) -> str | None:
    """The id of the state the client last saw: SSE's `Last-Event-ID` header, else the
    operation's `extensions.lastEventId`; None for a first subscribe."""
    given: object = headers.get(HEADER) if kind == "sse" else None
    if given is None and operation.extensions is not None:
        given = operation.extensions.get(EXTENSION)
    try:
        return given_event_id(given)
    except GatewayError as error:
        raise HttpProblem(400, error) from error
