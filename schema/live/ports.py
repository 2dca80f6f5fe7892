"""What the hub needs from outside it, in one place: how an answer looks, how it is sent,
charged and counted, and how a re-read's Context is built. The gateway's wiring supplies
each (the socket's send, the budgets, the metrics, `build_context`); the hub's modules
import these types from here and from nowhere above."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol, TypeAlias, get_args

from schema.context import Context
from schema.principal import Principal

__all__ = [
    "REREAD_REASONS",
    "Charge",
    "ContextFactory",
    "LiveObserver",
    "NoObserver",
    "Payload",
    "RereadReason",
    "Send",
    "free",
]

#: One re-read's answer as the `next` message carries it: `{"data": …, "errors": […]}`.
Payload: TypeAlias = dict[str, Any]

#: Sends one `next` payload on the subscription's socket.
Send = Callable[[Payload], Awaitable[None]]

#: Charges `cost` points to the principal's budget: 0 when charged, else the seconds to
#: wait before trying again (over budget, or the budgets' storage down and failing closed).
Charge = Callable[[Principal, int], Awaitable[float]]

#: Builds the re-read's Context for a principal of the group's read scope (`build_context`
#: with `reread=True`: strongly consistent, and charged to no one by the operation).
ContextFactory = Callable[[Principal], Context]

#: Why a group is re-read: a change from the feed, a subscriber's initial state (`initial:
#: true`), a resync after the feed lost changes, or the clock (UTC midnight, an item's TTL).
RereadReason: TypeAlias = Literal["change", "initial", "resync", "clock"]
REREAD_REASONS: tuple[RereadReason, ...] = get_args(RereadReason)


class LiveObserver(Protocol):
    """What the metrics hear of the hub."""

    def reread(self, reason: RereadReason) -> None: ...

    def event(self) -> None: ...


class NoObserver:
    """A `LiveObserver` that hears nothing (no metrics)."""

    def reread(self, reason: RereadReason) -> None:
        return None

    def event(self) -> None:
        return None


async def free(principal: Principal, cost: int) -> float:
    """No budgets: every re-read is charged nothing."""
    return 0.0
