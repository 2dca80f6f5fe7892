"""The GraphQL view's WebSocket side (mixed into gateway/http/graphql_view.py)."""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

from gateway.auth.tokens import TokenVerifier, Unauthenticated
from gateway.observability.logs import bind_request_id
from gateway.operations.hosts import host_allowed
from gateway.operations.response_headers import PROTECTIVE_HEADERS
from gateway.settings import Settings
from gateway.settings.live import LiveSettings
from gateway.state import app_context, opened_resources
from gateway.subscriptions.capacity import RETRY_AFTER_SECONDS, ReplicaSockets
from gateway.subscriptions.connection import BoundedWebSocketAdapter, Connection
from gateway.subscriptions.keepalive import Keepalive
from gateway.subscriptions.principal_sockets import PrincipalSockets
from gateway.subscriptions.transport import LiveTransport
from schema.clock import Clock
from schema.context import Context, LiveSubscriptions
from schema.live import LiveHub

logger = logging.getLogger("gateway.subscriptions")

#: A WebSocket must send `connection_init` this soon (else 4408).
CONNECTION_INIT_WAIT = timedelta(seconds=10)
#: The server pings an acknowledged socket this often (the client answers pong).
KEEPALIVE_SECONDS = 15.0


def socket_options(settings: LiveSettings) -> dict[str, Any]:
    """strawberry's view arguments for the sockets: graphql-transport-ws only (the legacy
    `graphql-ws` subprotocol is refused, 4406), its timeouts and bound, and the browser
    origins that may open one: the same as CORS's (`INSIGHT_CORS_ORIGINS`; none, same-origin
    pages only; clients that send no Origin, not browsers, always)."""
    return {
        "allowed_origins": settings.cors_origins,
        "keep_alive_interval": KEEPALIVE_SECONDS,
        "subscription_protocols": (GRAPHQL_TRANSPORT_WS_PROTOCOL,),
        "connection_init_wait_timeout": CONNECTION_INIT_WAIT,
        "max_subscriptions_per_connection": settings.subscriptions_max_per_connection,
    }


class SubscriptionSockets:
    """The hooks gateway/subscriptions/transport.py calls on the view."""

    graphql_transport_ws_handler_class = LiveTransport
    websocket_adapter_class = BoundedWebSocketAdapter
    settings: Settings
    clock: Clock
    verifier: TokenVerifier

    def is_websocket_origin_allowed(self, request: WebSocket, origin: str) -> bool:
        """A page on another origin may open a socket when its origin is allowed by CORS,
        or names one of the allowed hosts (INSIGHT_ALLOWED_HOSTS: `localhost` opening
        `127.0.0.1`). strawberry asks only for cross-origin upgrades; a same-origin one
        names the upgrade's own Host, which the allowed hosts checked before."""
        allowed: bool = super().is_websocket_origin_allowed(request, origin)  # type: ignore[misc]
        hosts = self.settings.allowed_hosts
        if allowed or not hosts or "*" in hosts:
            return allowed
        try:
            host = urlsplit(origin.strip()).hostname
        except ValueError:
            return False
        return host is not None and host_allowed(f"[{host}]" if ":" in host else host, hosts)

    @property
    def max_frame_bytes(self) -> int:
        return self.settings.max_body_bytes

    @cached_property
    def keepalive(self) -> Keepalive | None:
        """The replica's keepalive pings (its interval is `keep_alive_interval`, strawberry's
        view argument, read when the first socket is acknowledged)."""
        interval: float | None = getattr(self, "keep_alive_interval", None)
        return Keepalive(interval) if interval else None

    @cached_property
    def principal_sockets(self) -> PrincipalSockets:
        """The sockets each `sub` holds on this replica (this view is the app's one)."""
        return PrincipalSockets(self.settings.subscriptions_max_sockets_per_principal)

    @cached_property
    def replica_sockets(self) -> ReplicaSockets:
        """The sockets open on this replica (INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS)."""
        return ReplicaSockets(self.settings.subscriptions_max_sockets)

    async def serve_websocket(self, websocket: WebSocket) -> None:
        if not self.settings.subscriptions:
            # No subscriptions: refuse the handshake rather than hold a socket open.
            await websocket.close(code=1008)
            return
        offered = websocket.scope.get("subprotocols") or []
        if GRAPHQL_TRANSPORT_WS_PROTOCOL not in offered:
            logger.info("WebSocket offering %s, not graphql-transport-ws: closing 4406", offered)
        if not self.replica_sockets.acquire():
            await self._refuse_replica_full(websocket)
            return
        try:
            if await self._refused_for_its_principal(websocket):
                return
            run: Any = getattr(self, "run")  # noqa: B009 (strawberry's, on the view it mixes into)
            await run(websocket)
        finally:
            self.replica_sockets.release()

    async def _refuse_replica_full(self, websocket: WebSocket) -> None:
        """The replica holds INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS sockets: the upgrade is refused
        (503, `Retry-After`) before it is accepted, for the balancer to try another."""
        limit = self.replica_sockets.maximum
        logger.warning("WebSocket upgrade refused: %d sockets open on this replica", limit)
        message = f"This replica holds its maximum of sockets ({limit}): retry, or another one"
        await _refuse(
            websocket,
            JSONResponse(
                {"errors": [{"message": message, "extensions": {"code": "SERVICE_UNAVAILABLE"}}]},
                status_code=503,
                headers={**PROTECTIVE_HEADERS, "Retry-After": str(RETRY_AFTER_SECONDS)},
            ),
        )

    async def _refused_for_its_principal(self, websocket: WebSocket) -> bool:
        """With the token in the upgrade's header, a principal holding its maximum of sockets
        is refused before the upgrade (429). The socket is counted at `connection_init`, as
        one whose token comes there: the header's is checked again then."""
        header = websocket.headers.get("authorization")
        if header is None:
            return False
        try:
            principal = self.verifier.verify_authorization(header)
        except Unauthenticated:
            return False  # closed with 4401 at connection_init, as the protocol has it
        if not self.principal_sockets.full(principal.sub):
            return False
        limit = self.principal_sockets.maximum
        logger.info("WebSocket upgrade refused: %d sockets open for its principal", limit)
        message = f"Too many sockets open for this user on this replica (at most {limit})"
        refusal = JSONResponse(
            {"errors": [{"message": message, "extensions": {"code": "RATE_LIMITED"}}]},
            status_code=429,
            headers=PROTECTIVE_HEADERS,
        )
        await _refuse(websocket, refusal)
        return True

    def socket_connection(self, websocket: WebSocket, request_id: str) -> Connection:
        """The socket's state, its request id bound (in the task that serves the socket,
        whose operations' tasks inherit it) so that its log lines carry it, as a request's."""
        bind_request_id(request_id)
        return Connection.of(websocket, request_id)

    def operation_context(
        self, connection: Connection, live: LiveSubscriptions | None = None
    ) -> Context:
        """A fresh Context for one operation of a socket: its own loaders and deadline, and
        `live`, what its subscription resolvers subscribe through."""
        assert connection.principal is not None
        return app_context(
            opened_resources(connection.websocket.app),
            principal=connection.principal,
            clock=self.clock,
            request_id=connection.request_id,
            deadline_seconds=self.settings.request_deadline_seconds,
            live=live,
        )

    def live_hub(self, connection: Connection) -> LiveHub:
        hub = opened_resources(connection.websocket.app).live
        assert hub is not None, "the socket is refused with subscriptions off"
        return hub


async def _refuse(websocket: WebSocket, refusal: Response) -> None:
    """Answer the upgrade with `refusal`, never accepting the WebSocket."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(refusal)
    else:
        await websocket.close(code=1008)  # the server answers the upgrade 403
