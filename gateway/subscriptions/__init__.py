"""Subscriptions, socket side: the graphql-transport-ws transport on /graphql (strawberry's
handler with the gateway's auth and checks), the view's socket hooks, and the hub's lifespan
wiring (`open_subscriptions`). The hub itself, and the re-reads, are `schema.live`'s."""

from gateway.subscriptions.connection import BoundedWebSocketAdapter, Connection
from gateway.subscriptions.transport import LiveTransport
from gateway.subscriptions.view import SubscriptionSockets, socket_options
from gateway.subscriptions.wiring import open_subscriptions
from schema.subscription import NOT_OVER_WEBSOCKET

__all__ = [
    "NOT_OVER_WEBSOCKET",
    "BoundedWebSocketAdapter",
    "Connection",
    "LiveTransport",
    "SubscriptionSockets",
    "open_subscriptions",
    "socket_options",
]
