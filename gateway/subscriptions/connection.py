"""One WebSocket connection's state, and its frames bounded in size."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.http.exceptions import NonJsonMessageReceived, NonTextMessageReceived

from gateway.http.unicode_text import holds_lone_surrogate
from schema.principal import Principal

logger = logging.getLogger("gateway.subscriptions")

#: The close code of a frame over the bound (RFC 6455: "Message Too Big").
MESSAGE_TOO_BIG = 1009
#: graphql-transport-ws's close code for a message that is not the protocol's.
BAD_MESSAGE = 4400


@dataclass(eq=False)
class Connection:
    """What strawberry's handler keeps as the socket's "context": the socket, the
    `connection_init` payload, and once acknowledged, whom the token names. Each operation
    gets its own request Context (gateway/http/graphql_view.py: `operation_context`)."""

    websocket: WebSocket
    connection_params: dict[str, Any] | None = None
    principal: Principal | None = None
    #: Epoch seconds from which the token is refused (its `exp` plus the leeway).
    expires_at: float | None = None
    #: The client's address, for log lines.
    peer: str = field(default="")
    #: The upgrade request's X-Request-ID (or a new one): every operation's Context has it.
    request_id: str = ""

    @classmethod
    def of(cls, websocket: WebSocket, request_id: str) -> Connection:
        client = websocket.client
        peer = f"{client.host}:{client.port}" if client else ""
        return cls(websocket, peer=peer, request_id=request_id)


class BoundedWebSocketAdapter(ASGIWebSocketAdapter):
    """strawberry's ASGI adapter, closing with 1009 on a text frame over the view's
    `max_frame_bytes` (the same bound as an HTTP body), before decoding it."""

    async def iter_json(self, *, ignore_parsing_errors: bool = False) -> AsyncGenerator[object]:
        limit: int = getattr(self.view, "max_frame_bytes", 262_144)
        try:
            while self.ws.application_state != WebSocketState.DISCONNECTED:
                text = await self.ws.receive_text()
                # Characters never outnumber bytes: encode only when it could be too big.
                if len(text) * 4 > limit and len(text.encode("utf-8")) > limit:
                    logger.warning("WebSocket frame over %d bytes: closing with 1009", limit)
                    await self.ws.close(code=MESSAGE_TOO_BIG, reason="Message too big")
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
                    await self.ws.close(code=BAD_MESSAGE, reason="A message must be Unicode text")
                    return
                yield message
        except KeyError as error:
            raise NonTextMessageReceived from error
        except WebSocketDisconnect:
            pass
