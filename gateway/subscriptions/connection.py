"""One WebSocket connection's state, and its frames bounded in size."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.http.exceptions import NonJsonMessageReceived, NonTextMessageReceived

from gateway.operations.unicode_text import holds_lone_surrogate
from gateway.subscriptions.capacity import SocketSlot
from gateway.subscriptions.close_codes import ERROR_CODES, MESSAGE_TOO_BIG
from schema.principal import Principal

logger = logging.getLogger("gateway.subscriptions")

#: graphql-transport-ws's close code for a message that is not the protocol's.
BAD_MESSAGE = 4400


@dataclass(eq=False, slots=True)
class Connection:
    """What strawberry's handler keeps as the socket's "context": the socket and, once
    acknowledged, whom the token names (the `connection_init` payload, its token in it, is
    not kept: nothing reads it after). Each operation
    gets its own request Context (gateway/http/graphql_view.py: `operation_context`)."""

    websocket: WebSocket
    principal: Principal | None = None
    #: Epoch seconds from which the token is refused (its `exp` plus the leeway).
    expires_at: float | None = None
    #: The client's address, for log lines.
    peer: str = field(default="")
    #: The upgrade request's X-Request-ID (or a new one): every operation's Context has it.
    request_id: str = ""
    #: Its place on the replica (gateway/subscriptions/capacity.py), authenticated at
    #: `connection_init` when its token did not come with the upgrade.
    slot: SocketSlot | None = None

    @classmethod
    def of(cls, websocket: WebSocket, request_id: str) -> Connection:
        client = websocket.client
        peer = f"{client.host}:{client.port}" if client else ""
        slot = getattr(websocket.state, "socket_slot", None)
        return cls(websocket, peer=peer, request_id=request_id, slot=slot)


class BoundedWebSocketAdapter(ASGIWebSocketAdapter):
    """strawberry's ASGI adapter, closing with 1009 on a text frame over the view's
    `max_frame_bytes` (the same bound as an HTTP body), before decoding it.

    Every close of the gateway's and of strawberry's handler goes through `close`, so a
    close that refuses something is counted there, once, under the error code it means."""

    async def close(self, code: int, reason: str) -> None:
        error_code = ERROR_CODES.get(code)
        count_errors = getattr(self.view, "count_errors", None)
        # Counted before the close frame leaves, so that a client that reads /metrics once
        # it sees the close finds it counted; a socket already closed is told nothing.
        if (
            error_code is not None
            and count_errors is not None
            and self.ws.application_state != WebSocketState.DISCONNECTED
        ):
            count_errors([{"message": reason, "extensions": {"code": error_code}}])
        await self.ws.close(code=code, reason=reason)

    async def iter_json(self, *, ignore_parsing_errors: bool = False) -> AsyncGenerator[object]:
        limit: int = getattr(self.view, "max_frame_bytes", 262_144)
        try:
            while self.ws.application_state != WebSocketState.DISCONNECTED:
                text = await self.ws.receive_text()
                # Characters never outnumber bytes: encode only when it could be too big.
                if len(text) * 4 > limit and len(text.encode("utf-8")) > limit:
                    logger.warning("WebSocket frame over %d bytes: closing with 1009", limit)
                    await self.close(MESSAGE_TOO_BIG, "Message too big")
                    return
                try:
                    message = json.loads(text)
                except json.JSONDecodeError as error:
                    if not ignore_parsing_errors:
                        raise NonJsonMessageReceived from error
                    continue
                if holds_lone_surrogate(message):
                    # Refused at the boundary, as over HTTP: no text past it holds one.
                    logger.info("WebSocket message with a lone surrogate: closing with 4400")
                    await self.close(BAD_MESSAGE, "A message must be Unicode text")
                    return
                yield message
        except KeyError as error:
            raise NonTextMessageReceived from error
        except WebSocketDisconnect:
            pass
