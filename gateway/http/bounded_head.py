"""uvicorn's HTTP protocol with a bounded request head: the one module that subclasses it.

uvicorn bounds neither the size of a request head nor the time it takes to arrive: eight
connections each sending an unterminated 16 MB header raised a replica's RSS from 170 to
336 MB, and a partial head stayed open for as long as its sender liked. Here, as the image
(`--http` in its command), `insight-gateway serve` and `make serve` run it:

- a head over INSIGHT_MAX_HEAD_BYTES (16 KiB) is answered 431 and the connection closed,
  counted as its bytes arrive (so a head never sent whole is refused after at most one read
  past the bound), and measured whole when it ends;
- a head not whole INSIGHT_HEAD_TIMEOUT_SECONDS (10 s) after the connection opened, or after
  the last answer on it, has its connection closed.

uvicorn has documented options for neither with its fast parser (h11's
`h11_max_incomplete_event_size` answers 400, not 431, and only on h11, several times slower
a request), so this subclasses `HttpToolsProtocol` (uvicorn 0.55), the protocol `--http auto`
chooses: it extends `connection_made`, `connection_lost`, `data_received`,
`on_headers_complete`, `on_message_complete`, `on_response_complete`,
`handle_websocket_upgrade` and `send_400_response`, and reads `transport`, `loop`, `url`,
`headers` and `server_state.default_headers`. tests/gateway/http/test_bounded_head.py holds them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from gateway.settings import Settings
from gateway.subscriptions.server_protocol import app_settings

logger = logging.getLogger("gateway.http")

_REASON = b"Request Header Fields Too Large"
_DEFAULTS = Settings()


class HeadTooLarge(Exception):
    """Raised from the parser's callback: uvicorn answers it through `send_400_response`."""


class BoundedHeadProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        settings = app_settings(config) or _DEFAULTS
        super().__init__(config, server_state, app_state, _loop)
        self._max_head = settings.max_head_bytes
        self._head_seconds = settings.head_timeout_seconds
        #: Bytes of the head being received (None: no head awaited, one is being answered).
        self._head_bytes: int | None = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._too_large = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

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
        super().on_headers_complete()

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
