"""How a live HTTP stream frames its events: GraphQL over Server-Sent Events (the
`graphql-sse` protocol's distinct-connections mode) or Apollo's multipart HTTP subscriptions
(`multipart/mixed;subscriptionSpec="1.0"`), each event named by its state's id
(gateway/operations/resume.py: the same state has the same id on every replica, after a
restart and over every transport, so a client that comes back with the id it last saw,
`Last-Event-ID` or `extensions.lastEventId`, is sent a state only when it differs).
"""

from __future__ import annotations

from typing import Final, Literal, Protocol, TypeAlias

from gateway.operations.resume import encode, event_id
from schema.live import Payload

__all__ = [
    "MULTIPART",
    "SSE",
    "Framing",
    "MultipartFraming",
    "SseFraming",
    "StreamKind",
    "encode",
    "event_id",
    "stream_kind",
]

SSE: Final = "text/event-stream"
MULTIPART: Final = "multipart/mixed"
StreamKind: TypeAlias = Literal["sse", "multipart"]

#: The multipart boundary Apollo Client and Apollo Router use for subscriptions.
BOUNDARY = "graphql"


def stream_kind(accept: str | None) -> StreamKind | None:
    """The live transport an Accept header asks for: `text/event-stream` (SSE), or
    `multipart/mixed` with `subscriptionSpec` 1.0 (Apollo's HTTP link); None for any other
    (a plain GraphQL-over-HTTP request, or multipart for `@defer`, which is not served)."""
    if not accept:
        return None
    for part in accept.split(","):
        media, *params = (piece.strip() for piece in part.split(";"))
        media = media.lower()
        if media == SSE:
            return "sse"
        if media == MULTIPART:
            named = dict(_param(param) for param in params)
            if named.get("subscriptionspec", "").startswith("1.0"):
                return "multipart"
    return None


def _param(param: str) -> tuple[str, str]:
    name, _, value = param.partition("=")
    return name.strip().lower(), value.strip().strip("'\"")


class Framing(Protocol):
    """The bytes one transport sends for each part of a stream."""

    media_type: str

    def start(self) -> bytes: ...

    def event(self, payload: Payload, data: bytes, state: str | None) -> bytes:
        """`payload` (the answer) as one event; `data` its bytes, `state` its id."""

    def complete(self) -> bytes: ...

    def ping(self) -> bytes: ...

    def restart(self, retry_ms: int) -> bytes: ...


class SseFraming:
    """graphql-sse, distinct connections: `next` events, then `complete` (with the empty
    `data:` an EventSource needs to fire it). A comment line keeps the stream alive; at a
    restart the stream ends with `retry:`, the client's reconnect delay."""

    media_type = SSE

    def start(self) -> bytes:
        return b":\n\n"

    def event(self, payload: Payload, data: bytes, state: str | None) -> bytes:
        named = f"id: {state}\n".encode() if state is not None else b""
        return b"event: next\n" + named + b"data: " + data + b"\n\n"

    def complete(self) -> bytes:
        return b"event: complete\ndata: \n\n"

    def ping(self) -> bytes:
        return b":\n\n"

    def restart(self, retry_ms: int) -> bytes:
        return f"retry: {retry_ms}\n\n".encode()


class MultipartFraming:
    """Apollo's multipart subscriptions: each part a JSON `{"payload": …}` (a heartbeat is
    `{}`), the stream closed by the final boundary. The event's id rides in the payload's
    `extensions.eventId`; a restart is a transport-level error part (`payload: null`) that
    tells the client to subscribe again with `extensions.lastEventId`."""

    media_type = f'{MULTIPART};boundary="{BOUNDARY}";subscriptionSpec="1.0"'

    def start(self) -> bytes:
        return f"--{BOUNDARY}".encode() + self._part(b"{}")

    def event(self, payload: Payload, data: bytes, state: str | None) -> bytes:
        if state is not None:
            extensions = {**(payload.get("extensions") or {}), "eventId": state}
            data = encode({**payload, "extensions": extensions})
        return self._part(b'{"payload":' + data + b"}")

    def complete(self) -> bytes:
        return b"--\r\n"

    def ping(self) -> bytes:
        return self._part(b"{}")

    def restart(self, retry_ms: int) -> bytes:
        error = {
            "payload": None,
            "errors": [
                {
                    "message": "The server is restarting: subscribe again with "
                    "extensions.lastEventId",
                    "extensions": {"code": "SERVICE_UNAVAILABLE", "retryAfterMs": retry_ms},
                }
            ],
        }
        return self._part(encode(error)) + self.complete()

    @staticmethod
    def _part(body: bytes) -> bytes:
        return (
            b"\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
            + body
            + f"\r\n--{BOUNDARY}".encode()
        )
