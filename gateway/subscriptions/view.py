"""The GraphQL view's WebSocket side (mixed into gateway/http/graphql_view.py)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import cached_property

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from gateway.auth.tokens import TokenVerifier, Unauthenticated
from gateway.observability.logs import bind_request_id
from gateway.operations.browser_origin import origin_allowed
from gateway.operations.response_headers import PROTECTIVE_HEADERS
from gateway.settings import Settings
from gateway.settings.live import LiveSettings
from gateway.state import app_context, opened_resources
from gateway.subscriptions.capacity import RETRY_AFTER_SECONDS, ReplicaSockets, SocketSlot
from gateway.subscriptions.close_codes import SUBPROTOCOL_NOT_ACCEPTABLE
from gateway.subscriptions.connection import Connection
from gateway.subscriptions.keepalive import Keepalive
from gateway.subscriptions.principal_sockets import PrincipalSockets
from gateway.subscriptions.protocol import SocketProtocol
from schema.clock import Clock
from schema.context import Context, LiveSubscriptions
from schema.live import LiveHub
from schema.principal import Principal

logger = logging.getLogger("gateway.subscriptions")

#: The one subprotocol spoken (the npm `graphql-ws` library's).
GRAPHQL_TRANSPORT_WS = "graphql-transport-ws"


class SubscriptionSockets:
    """The view's socket side: admission, the upgrade, and the hooks the protocol
    (gateway/subscriptions/protocol.py) calls. graphql-transport-ws only: the legacy
    `graphql-ws` subprotocol is refused (4406)."""

    settings: Settings
    clock: Clock
    verifier: TokenVerifier
    #: The server pings an acknowledged socket this often (seconds; 0: never).
    keep_alive_interval = 15.0

    def configure_sockets(self, settings: LiveSettings) -> None:
        #: A socket must send `connection_init` this soon (seconds; else 4408).
        self.init_wait_seconds = settings.subscriptions_init_seconds
        self.max_operations = settings.subscriptions_max_per_connection

    @property
    def max_frame_bytes(self) -> int:
        return self.settings.max_body_bytes

    @cached_property
    def keepalive(self) -> Keepalive | None:
        """The replica's keepalive pings (its interval is `keep_alive_interval`, read when
        the first socket is acknowledged)."""
        interval = self.keep_alive_interval
        return Keepalive(interval) if interval else None

    @cached_property
    def principal_sockets(self) -> PrincipalSockets:
        """The sockets each `sub` holds on this replica (this view is the app's one)."""
        return PrincipalSockets(self.settings.subscriptions_max_sockets_per_principal)

    @cached_property
    def replica_sockets(self) -> ReplicaSockets:
        """The sockets open on this replica (INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS)."""
        return ReplicaSockets(
            self.settings.subscriptions_max_sockets,
            self.settings.subscriptions_max_unauthenticated,
        )

    async def serve_websocket(self, websocket: WebSocket, request_id: str) -> None:
        if not self.settings.subscriptions:
            # No subscriptions: refuse the handshake rather than hold a socket open.
            await websocket.close(code=1008)
            return
        principal = self._upgrade_principal(websocket)
        if principal is not None and self.principal_sockets.full(principal.sub):
            await self._refuse_principal_full(websocket)
            return
        slot = self.replica_sockets.admit(authenticated=principal is not None)
        if slot is None:
            await self._refuse_replica_full(websocket)
            return
        try:
            await self._serve_admitted(websocket, slot, request_id)
        finally:
            slot.release()

    async def _serve_admitted(
        self, websocket: WebSocket, slot: SocketSlot, request_id: str
    ) -> None:
        # Browsers always send `Origin` on an upgrade; a client that sends none is no
        # browser, with no ambient credentials to abuse (gateway/operations/browser_origin.py).
        settings = self.settings
        if not origin_allowed(websocket.headers, settings.cors_origins, settings.allowed_hosts):
            logger.warning(
                "WebSocket upgrade refused: origin %r is not allowed (INSIGHT_CORS_ORIGINS)",
                websocket.headers.get("origin"),
            )
            await websocket.close(code=1008)  # before the accept: the server answers 403
            return
        offered = websocket.scope.get("subprotocols") or []
        speaks = GRAPHQL_TRANSPORT_WS in offered
        await websocket.accept(subprotocol=GRAPHQL_TRANSPORT_WS if speaks else None)
        # Bound in the task that serves the socket (its operations' tasks inherit it), so
        # that its log lines carry it, as a request's.
        bind_request_id(request_id)
        connection = Connection.of(websocket, request_id)
        connection.slot = slot
        protocol = SocketProtocol(self, connection)  # type: ignore[arg-type]
        if not speaks:
            await protocol.close(SUBPROTOCOL_NOT_ACCEPTABLE, "Subprotocol not acceptable")
            return
        await protocol.serve()

    async def _refuse_replica_full(self, websocket: WebSocket) -> None:
        """The replica holds INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS sockets, or as many waiting
        for their token as it allows: the upgrade is refused (503, `Retry-After`) before it
        is accepted, for the balancer to try another."""
        sockets = self.replica_sockets
        if sockets.open >= sockets.maximum:
            logger.warning(
                "WebSocket upgrade refused: %d sockets open on this replica", sockets.maximum
            )
            message = (
                f"This replica holds its maximum of sockets ({sockets.maximum}): retry, or "
                "another one"
            )
        else:
            # Info, not a warning: refusing such upgrades is the allowance working, and a
            # client opening sockets without end would flood the log with them.
            logger.info(
                "WebSocket upgrade refused: %d sockets wait for their connection_init",
                sockets.unauthenticated,
            )
            message = (
                f"This replica holds its maximum of sockets waiting for a token "
                f"({sockets.unauthenticated}): retry, send the token in the upgrade's "
                "Authorization header, or try another one"
            )
        retry = {**PROTECTIVE_HEADERS, "Retry-After": str(RETRY_AFTER_SECONDS)}
        await _refuse(websocket, 503, "SERVICE_UNAVAILABLE", message, retry)

    def _upgrade_principal(self, websocket: WebSocket) -> Principal | None:
        """The principal of the token in the upgrade's header, if there is a valid one. The
        socket is then authenticated from the start: it takes a replica place, not one of
        the allowance. The token is checked again at `connection_init`."""
        header = websocket.headers.get("authorization")
        if header is None:
            return None
        try:
            return self.verifier.verify_authorization(header)
        except Unauthenticated:
            return None  # closed with 4401 at connection_init, as the protocol has it

    async def _refuse_principal_full(self, websocket: WebSocket) -> None:
        """A principal holding its maximum of sockets is refused before the upgrade (429).
        A socket whose token comes at `connection_init` is counted there."""
        limit = self.principal_sockets.maximum
        logger.info("WebSocket upgrade refused: %d sockets open for its principal", limit)
        message = f"Too many sockets open for this user on this replica (at most {limit})"
        await _refuse(websocket, 429, "RATE_LIMITED", message, PROTECTIVE_HEADERS)

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


async def _refuse(
    websocket: WebSocket, status: int, code: str, message: str, headers: Mapping[str, str]
) -> None:
    """Answer the upgrade with `status` and the error `code`, never accepting the WebSocket."""
    errors = [{"message": message, "extensions": {"code": code}}]
    refusal = JSONResponse({"errors": errors}, status_code=status, headers=headers)
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(refusal)
    else:
        await websocket.close(code=1008)  # the server answers the upgrade 403
