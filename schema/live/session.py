"""What a subscription's resolver needs from the transport that runs it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from schema.live.hub import Events, LiveHub
from schema.live.ports import Send
from schema.principal import Principal


@dataclass(frozen=True, slots=True)
class LiveSession:
    """One subscription operation of a socket: the hub, the operation as the transport
    resolved it (a trusted document's text included), and how to send its `next`. The
    WebSocket transport puts it in the operation's Context (`Context.live`), where the
    resolvers of `Subscription` (schema/subscription.py) find it."""

    hub: LiveHub
    query: str
    operation_name: str | None
    variables: Mapping[str, Any] | None
    send: Send

    def subscribe(
        self, *, principal: Principal, user_ids: Iterable[str], initial: bool, cost: int
    ) -> Events:
        """`LiveHub.subscribe` for this operation."""
        return self.hub.subscribe(
            principal=principal,
            query=self.query,
            operation_name=self.operation_name,
            variables=self.variables,
            user_ids=user_ids,
            initial=initial,
            cost=cost,
            send=self.send,
        )
