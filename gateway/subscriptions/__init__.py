"""Subscriptions, socket side: the graphql-transport-ws protocol on /graphql (the gateway's
own, on starlette's WebSocket) and the view's socket hooks. The hub itself, and the
re-reads, are `schema.live`'s; its lifespan wiring is `gateway.live`'s."""

from gateway.subscriptions.view import SubscriptionSockets
from schema.subscription import NOT_OVER_WEBSOCKET

__all__ = ["NOT_OVER_WEBSOCKET", "SubscriptionSockets"]
