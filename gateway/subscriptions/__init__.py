"""Subscriptions, socket side: the graphql-transport-ws transport on /graphql (strawberry's
handler with the gateway's auth and checks) and the view's socket hooks. The hub itself,
and the re-reads, are `schema.live`'s; its lifespan wiring is `gateway.live`'s."""

from gateway.subscriptions.connection import BoundedWebSocketAdapter, Connection
from gateway.subscriptions.transport import LiveTransport
from gateway.subscriptions.view import SubscriptionSockets, socket_options
from schema.subscription import NOT_OVER_WEBSOCKET

__all__ = [
    "NOT_OVER_WEBSOCKET",
    "BoundedWebSocketAdapter",
    "Connection",
    "LiveTransport",
    "SubscriptionSockets",
    "socket_options",
]
