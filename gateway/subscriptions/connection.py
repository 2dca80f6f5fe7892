"""One WebSocket connection's state."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.websockets import WebSocket

from gateway.subscriptions.capacity import SocketSlot
from schema.principal import Principal


@dataclass(eq=False, slots=True)
class Connection:
    """What the socket's protocol (gateway/subscriptions/protocol.py) keeps of it: the
    socket and, once acknowledged, whom the token names (the `connection_init` payload, its
    token in it, is not kept: nothing reads it after). Each operation gets its own request
    Context (gateway/subscriptions/view.py: `operation_context`)."""

    websocket: WebSocket
    principal: Principal | None = None
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
        return cls(websocket, peer=peer, request_id=request_id)
