"""Subscriptions, socket side: the graphql-transport-ws transport on /graphql (strawberry's
handler with the gateway's auth and checks) and the hub's lifespan wiring (`open_subscriptions`).
The hub itself, and the re-reads, are `schema.live`'s."""

from gateway.subscriptions.connection import BoundedWebSocketAdapter, Connection
from gateway.subscriptions.transport import LiveTransport
from gateway.subscriptions.wiring import open_subscriptions

__all__ = ["BoundedWebSocketAdapter", "Connection", "LiveTransport", "open_subscriptions"]
