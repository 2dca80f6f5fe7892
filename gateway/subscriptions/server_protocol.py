"""uvicorn's WebSocket protocol as the gateway runs it (`--ws` in the image's command,
`insight-gateway serve`'s Config): per-message compression as INSIGHT_SUBSCRIPTIONS_COMPRESSION
says, and a restart that closes its sockets spread over the grace period.

- Compression: uvicorn offers permessage-deflate to every client by default; its zlib state
  costs each socket tens of KiB for events of a few hundred bytes. Off unless the setting is
  on (docs/subscriptions.md, "Memory per socket").
- Memory: the upgrade's parsed request and response are let go once the handshake is
  answered, the ASGI events wait in a list rather than an `asyncio.Queue`, and the flow
  control's `writable` holds a future only while a send waits, not an `asyncio.Event`.
- SIGTERM: uvicorn closes every open WebSocket at once with 1012 (service restart), and every
  client then comes back in the same instant. Here the i-th socket is closed `i/N` of the way
  through the first `SPREAD_SHARE` of the grace period (uvicorn's `timeout_graceful_shutdown`,
  INSIGHT_SHUTDOWN_GRACE_SECONDS / UVICORN_TIMEOUT_GRACEFUL_SHUTDOWN), so the clients'
  reconnections arrive spread too, on the replicas still serving.

Built on uvicorn 0.55's `WebSocketsSansIOProtocol` (its default, `websockets-sansio`): its
`__init__` reads `config.ws_per_message_deflate`, and `shutdown` is what uvicorn's server calls
on each connection at SIGTERM (tests/gateway/subscriptions/test_restart.py holds both).
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.applications import Starlette
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from gateway.live_http.light_event import LightEvent
from gateway.settings import Settings

#: The share of the grace period the closes are spread over: the rest lets the last ones
#: finish (and the lifespan close its clients) before uvicorn cancels what is left.
SPREAD_SHARE = 0.75


def app_state(app: Any) -> Any | None:
    """The gateway's `app.state` behind uvicorn's middleware (each keeps the next as `.app`)."""
    for _ in range(16):
        if isinstance(app, Starlette):
            return app.state
        app = getattr(app, "app", None)
    return None


def app_settings(config: Config) -> Settings | None:
    """The gateway's settings behind uvicorn's middleware, its app loaded first if need be."""
    if not config.loaded:
        config.load()
    settings = getattr(app_state(config.loaded_app), "settings", None)
    return settings if isinstance(settings, Settings) else None


class _Inbox:
    """What uvicorn's protocol uses of its `asyncio.Queue` of ASGI events (`put_nowait`,
    `get`, `empty`), without the queue's four deques (2.5 KiB a socket): a list, and a future
    only while the application waits for an event (no `shield` around it: one reader)."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> Any:
        # One reader (the application's `receive`): a reader cancelled while it waits
        # cancels the future, and the next `get` makes a new one.
        while not self._items:
            if self._waiter is None or self._waiter.done():
                self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        return self._items.pop(0)


class _Closing:
    """The order of the closes one server makes at its shutdown."""

    def __init__(self, total: int) -> None:
        self.total = max(total, 1)
        self.next = 0


class GatewayWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        settings = app_settings(config)
        if settings is not None:
            config.ws_per_message_deflate = settings.subscriptions_compression
        super().__init__(config, server_state, app_state, _loop)
        self.queue = _Inbox()  # type: ignore[assignment]
        self.writable = LightEvent(flag=True)  # type: ignore[assignment]
        self._server_state = server_state

    async def send(self, message: Any) -> None:
        await super().send(message)
        if self.handshake_complete and self.response is not None:
            # The upgrade's parsed request and response (their header objects, a few KiB)
            # are needed only until the handshake is answered; the scope keeps the headers.
            # The request is emptied, not only let go: websockets' parser (a generator,
            # alive as long as the socket) still holds it in a local.
            if self.request is not None:
                self.request.headers.clear()
            self.request = self.response = None  # type: ignore[assignment]

    def shutdown(self) -> None:
        grace = self.config.timeout_graceful_shutdown
        if not grace or not self.handshake_complete or self.close_sent:
            super().shutdown()
            return
        closing: _Closing | None = getattr(self._server_state, "insight_closing", None)
        if closing is None:
            sockets = sum(
                isinstance(connection, GatewayWebSocketProtocol)
                for connection in self._server_state.connections
            )
            closing = _Closing(sockets)
            self._server_state.insight_closing = closing  # type: ignore[attr-defined]
        delay = grace * SPREAD_SHARE * closing.next / closing.total
        closing.next += 1
        self.loop.call_later(delay, self._restart_close)

    def _restart_close(self) -> None:
        if self in self.connections and not self.transport.is_closing():
            super().shutdown()
