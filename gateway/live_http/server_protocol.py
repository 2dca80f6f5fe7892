"""uvicorn's HTTP protocol as the gateway runs it (`--http` in the image's command,
`insight-gateway serve`'s Config): the request head bounded (its base class,
gateway/http/bounded_head.py), and at SIGTERM the live HTTP streams end with `retry:`.

uvicorn's graceful shutdown calls `shutdown()` on every connection, then waits (up to the
grace period) for the requests under way to finish, and only then runs the lifespan's exit.
A stream never finishes by itself: without this, each would hold the restart for the whole
grace period and then be cut off, its client left to its own reconnect pause. Here the first
connection's `shutdown` ends every stream of the replica (gateway/live_http/stream.py:
`OpenStreams.restart_all`), each client told to come back within a second.

Memory: a stream holds its connection for hours, so what uvicorn keeps a connection is
lighter here: its two `asyncio.Event`s and its pipeline's deque hold no deque block
(gateway/live_http/light_event.py), and the parsed headers are kept only in the scope.

Built on uvicorn 0.55's `HttpToolsProtocol` (its default where httptools is installed, as in
the image): `shutdown` is what its server calls, `pipeline`, `headers`, `cycle.message_event`
and `flow._is_writable_event` what it keeps (tests/gateway/live_http/test_restart.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.server import ServerState

from gateway.http.bounded_head import BoundedHeadProtocol
from gateway.live_http.light_event import LightEvent
from gateway.live_http.stream import OpenStreams
from gateway.subscriptions.server_protocol import app_state

__all__ = ["GatewayHttpProtocol", "open_streams_of"]


def open_streams_of(app: Any) -> OpenStreams | None:
    """The gateway's open streams behind uvicorn's middleware."""
    streams = getattr(app_state(app), "live_streams", None)
    return streams if isinstance(streams, OpenStreams) else None


class _Pipeline(list[Any]):
    """What the protocol uses of its pipelined requests' deque (`appendleft`, `pop`, truth)
    without the deque's block (about 600 bytes a connection, nearly always empty)."""

    __slots__ = ()

    def appendleft(self, item: Any) -> None:
        self.insert(0, item)


class GatewayHttpProtocol(BoundedHeadProtocol):
    """uvicorn's httptools protocol with its request head bounded (gateway/http/
    bounded_head.py); each connection's two events light (a stream holds its connection for
    hours), and live streams ended at the server's shutdown."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.pipeline = _Pipeline()  # type: ignore[assignment]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        # uvicorn's FlowControl keeps its `asyncio.Event` as `_is_writable_event` (0.55).
        self.flow._is_writable_event = LightEvent(flag=True)  # type: ignore[assignment]

    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not None and self.cycle is not before:
            # A new request's, before anything set or awaited it (its task has not run).
            self.cycle.message_event = LightEvent()  # type: ignore[assignment]
            # The parsed headers live on in the scope alone (which the view lets go of once
            # a stream is subscribed), not in a second reference here for the connection's
            # life; the next request's `on_message_begin` makes a new list anyway.
            self.headers = []

    def shutdown(self) -> None:
        streams = open_streams_of(self.app)
        if streams is not None:
            streams.restart_all()
        super().shutdown()
