"""uvicorn's HTTP protocol as the gateway runs it (`--http` in the image's command,
`insight-gateway serve`'s Config, `make serve`): the request head bounded, each connection
light, and at SIGTERM the live HTTP streams ended with `retry:`.

The head: uvicorn bounds neither the size of a request head nor the time it takes to
arrive: eight connections each sending an unterminated 16 MB header raised a replica's RSS
from 170 to 336 MB, and a partial head stayed open for as long as its sender liked. Here:

- a head over INSIGHT_MAX_HEAD_BYTES (16 KiB) is answered 431 and the connection closed,
  counted as its bytes arrive (so a head never sent whole is refused after at most one read
  past the bound), and measured whole when it ends;
- a head not whole INSIGHT_HEAD_TIMEOUT_SECONDS (10 s) after the connection opened, or after
  the last answer on it, has its connection closed.

uvicorn has documented options for neither with its fast parser (h11's
`h11_max_incomplete_event_size` answers 400, not 431, and only on h11, several times slower
a request).

The restart: uvicorn's graceful shutdown calls `shutdown()` on every connection, then waits
(up to the grace period) for the requests under way to finish, and only then runs the
lifespan's exit. A stream never finishes by itself: without this, each would hold the
restart for the whole grace period and then be cut off, its client left to its own reconnect
pause. Here the first connection's `shutdown` ends every stream of the replica
(gateway/live_http/stream.py: `OpenStreams.restart_all`), each client told to come back
within a second.

Memory: a stream holds its connection for hours, so what uvicorn keeps a connection is
lighter here: its two `asyncio.Event`s and its pipeline's deque hold no deque block
(gateway/live_http/light_event.py), and the parsed headers are kept only in the scope.

Built on uvicorn 0.55's `HttpToolsProtocol` (the one `--http auto` chooses where httptools
is installed, as in the image): it extends `connection_made`, `connection_lost`,
`data_received`, `on_headers_complete`, `on_message_complete`, `on_response_complete`,
`handle_websocket_upgrade`, `send_400_response` and `shutdown`, and reads `transport`,
`loop`, `url`, `headers`, `server_state.default_headers`, `pipeline`, `cycle.message_event`
and `flow._is_writable_event` (tests/gateway/http/test_bounded_head.py,
tests/gateway/live_http/test_restart.py).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from gateway.live_http.light_event import LightEvent
from gateway.live_http.stream import OpenStreams
from gateway.settings import Settings
from gateway.subscriptions.server_protocol import app_settings, app_state

__all__ = ["GatewayHttpProtocol", "open_streams_of"]

logger = logging.getLogger("gateway.http")

_REASON = b"Request Header Fields Too Large"
_DEFAULTS = Settings()


def open_streams_of(app: Any) -> OpenStreams | None:
    """The gateway's open streams behind uvicorn's middleware."""
    streams = getattr(app_state(app), "live_streams", None)
    return streams if isinstance(streams, OpenStreams) else None


class HeadTooLarge(Exception):
    """Raised from the parser's callback: uvicorn answers it through `send_400_response`."""


class _Pipeline(list[Any]):
    """What the protocol uses of its pipelined requests' deque (`appendleft`, `pop`, truth)
    without the deque's block (about 600 bytes a connection, nearly always empty)."""

    __slots__ = ()

    def appendleft(self, item: Any) -> None:
        self.insert(0, item)


class GatewayHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with its request head bounded, each connection's two
    events light, and live streams ended at the server's shutdown."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        settings = app_settings(config) or _DEFAULTS
        super().__init__(config, server_state, app_state, _loop)
        self.pipeline = _Pipeline()  # type: ignore[assignment]
        self._max_head = settings.max_head_bytes
        self._head_seconds = settings.head_timeout_seconds
        #: Bytes of the head being received (None: no head awaited, one is being answered).
        self._head_bytes: int | None = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._too_large = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()
        # uvicorn's FlowControl keeps its `asyncio.Event` as `_is_writable_event` (0.55).
        self.flow._is_writable_event = LightEvent(flag=True)  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._head_bytes is not None:
            self._head_bytes += len(data)
        super().data_received(data)
        if (
            self._head_bytes is not None
            and self._head_bytes > self._max_head
            and not self.transport.is_closing()
        ):
            self._refuse_head()

    def on_headers_complete(self) -> None:
        self._stop_head_timer()
        self._head_bytes = None
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self._max_head:
            self._too_large = True
            raise HeadTooLarge(size)
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not None and self.cycle is not before:
            # A new request's, before anything set or awaited it (its task has not run).
            self.cycle.message_event = LightEvent()  # type: ignore[assignment]
            # The parsed headers live on in the scope alone (which the view lets go of once
            # a stream is subscribed), not in a second reference here for the connection's
            # life; the next request's `on_message_begin` makes a new list anyway.
            self.headers = []

    def on_message_complete(self) -> None:
        super().on_message_complete()
        # What follows on the connection is the next request's head.
        self._head_bytes = 0

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self._head_bytes is not None:
            self._await_head()

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # The connection is a socket's now: no byte comes here again. The parser holds this
        # protocol's callbacks and it the parser: a cycle that kept the upgrade's head (27
        # objects) for the collector's next pass, for each socket. Cut, as uvicorn cuts it
        # when a connection is lost.
        del self.parser

    def send_400_response(self, msg: str) -> None:
        if self._too_large:
            self._refuse_head()
            return
        super().send_400_response(msg)

    def shutdown(self) -> None:
        streams = open_streams_of(self.app)
        if streams is not None:
            streams.restart_all()
        super().shutdown()

    def _await_head(self) -> None:
        self._stop_head_timer()
        self._head_timer = self.loop.call_later(self._head_seconds, self._head_timed_out)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self._head_bytes is not None and not self.transport.is_closing():
            logger.info("closing a connection whose request head did not arrive in time")
            self.transport.close()

    def _refuse_head(self) -> None:
        self._stop_head_timer()
        self._head_bytes = None
        logger.info("request head over %d bytes: 431", self._max_head)
        body = b"Request head too large"
        content = [b"HTTP/1.1 431 ", _REASON, b"\r\n"]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                b"content-type: text/plain; charset=utf-8\r\n",
                b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
                b"connection: close\r\n\r\n",
                body,
            ]
        )
        self.transport.write(b"".join(content))
        self.transport.close()
