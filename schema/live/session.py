"""What a subscription's resolver needs from the transport that runs it."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from schema.live.hub import LiveHub
from schema.live.ports import Send
from schema.live.subscriber import Subscriber
from schema.principal import Principal


class HandedOver:
    """A subscription's source stream as graphql-core sees it: empty. The subscriber is
    registered with the hub, which executes each event once per group and sends it
    through the subscriber itself; the operation's stream then ends at once, and its
    execution (graphql-core's generators, its Context) goes with it. The transport keeps
    the subscriber (`LiveSession.subscriber`) until the client completes the operation or
    the socket closes."""

    __slots__ = ()

    def __aiter__(self) -> HandedOver:
        return self

    async def __anext__(self) -> NoReturn:
        raise StopAsyncIteration


class LiveSession:
    """One subscription operation of a socket: the hub, the operation as the transport
    resolved it (a trusted document's text included), and how to send its `next`. The
    WebSocket transport puts it in the operation's Context (`Context.live`), where the
    resolvers of `Subscription` (schema/subscription.py) find it; once they ran, it holds
    the subscriber they registered."""

    __slots__ = ("hub", "operation_name", "query", "resuming", "send", "subscriber", "variables")

    def __init__(
        self,
        hub: LiveHub,
        query: str,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
        send: Send,
        *,
        resuming: bool = False,
    ) -> None:
        """`resuming`: the client holds an earlier state, so its users' current state is
        read at once (`initial`), whatever the operation asked, to compare with it."""
        self.hub = hub
        # Interned: the hub's group of each user keeps the text, and a fleet of frontends
        # sends the same few documents.
        self.query = sys.intern(query)
        self.resuming = resuming
        self.operation_name = operation_name
        self.variables = variables
        self.send = send
        self.subscriber: Subscriber | None = None

    def subscribe(
        self, *, principal: Principal, user_ids: Iterable[str], initial: bool, cost: int
    ) -> HandedOver:
        """`LiveHub.subscribe` for this operation (once)."""
        assert self.subscriber is None, "one subscription field per operation"
        self.subscriber = self.hub.subscribe(
            principal=principal,
            query=self.query,
            operation_name=self.operation_name,
            variables=self.variables,
            user_ids=user_ids,
            initial=initial or self.resuming,
            cost=cost,
            send=self.send,
        )
        return HandedOver()

    def unsubscribe(self) -> None:
        """The operation is over (completed by the client, or its socket closed)."""
        if self.subscriber is not None:
            self.hub.remove(self.subscriber)
            self.subscriber = None
