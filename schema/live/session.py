"""What a subscription's resolver needs from the transport that runs it."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from schema.live.hub import LiveHub
from schema.live.subscriber import Send


@dataclass(frozen=True, slots=True)
class LiveSession:
    """One subscription operation of a socket: the hub, the operation as the transport
    resolved it (a trusted document's text included), and how to send its `next`."""

    hub: LiveHub
    query: str
    operation_name: str | None
    variables: Mapping[str, Any] | None
    send: Send


#: Set by the WebSocket transport in each operation's own task, read by the resolvers of
#: `Subscription` (schema/subscription.py); unset elsewhere (HTTP has no subscriptions).
LIVE_SESSION: ContextVar[LiveSession | None] = ContextVar("insight_live_session", default=None)
