"""The gateway's app as uvicorn calls it, with a lane for its sockets: a WebSocket on
/graphql goes straight to the GraphQL view, and so does a live HTTP stream (SSE, multipart)
there, behind CORS alone.

A socket lives for hours, and every ASGI layer between uvicorn and the view keeps a
coroutine frame alive for as long (starlette's error and exception middleware, the router,
the route, and the gateway's access log, last resort, HTTP metrics and CORS layers, each of
which passes a WebSocket through untouched): about 2.5 KiB a socket, for nothing. HTTP
requests keep the whole stack. With tracing on, OpenTelemetry's ASGI middleware would
likewise hold a span open for the socket's life; sockets are not traced (their
operations' DynamoDB calls are, under the re-read that makes them). A stream, like a socket,
is in neither the access log nor the HTTP metrics: `gateway_subscriptions` counts it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from gateway.live_http.framing import stream_kind

__all__ = ["SOCKET_PATH", "GatewayApp"]

#: Where the subscriptions' socket is served.
SOCKET_PATH = "/graphql"


class GatewayApp(Starlette):
    """starlette's app, with the GraphQL view serving a WebSocket on SOCKET_PATH directly
    (it is also routed, for an app mounted under a root path): `serve_sockets` sets it."""

    socket_lane: ASGIApp | None = None
    #: The GraphQL view (behind the allowed hosts and CORS, when they are configured) for a
    #: live HTTP stream on SOCKET_PATH (gateway/live_http): it too lasts for hours.
    serve_stream: ASGIApp | None = None

    def serve_sockets(
        self, serve: Callable[[WebSocket], Awaitable[None]], checked: Callable[[ASGIApp], ASGIApp]
    ) -> None:
        """Sockets served by `serve`, behind `checked`: the checks of the HTTP stack's that
        a socket needs too (the allowed hosts), and no other layer."""

        async def lane(scope: Scope, receive: Receive, send: Send) -> None:
            await serve(WebSocket(scope, receive=receive, send=send))

        self.socket_lane = checked(lane)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        lane: ASGIApp | None = None
        if kind != "lifespan" and scope["path"] == SOCKET_PATH and not scope.get("root_path"):
            if kind == "websocket":
                lane = self.socket_lane
            elif _streamed(scope):
                lane = self.serve_stream
        if lane is None:
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        await lane(scope, receive, send)


def _streamed(scope: Scope) -> bool:
    """The request asks for a live stream (its Accept: SSE or multipart subscriptions)."""
    for name, value in scope["headers"]:
        if name == b"accept":
            return stream_kind(value.decode("latin-1")) is not None
    return False
