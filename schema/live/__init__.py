"""Live data: the subscriptions' hub, fed by the change feed (loaders/changes), re-reading
through the schema and handing each subscriber its answers (SPEC section 7)."""

from schema.live.hub import DEBOUNCE_SECONDS, ContextFactory, Events, GroupKey, LiveHub, user_of
from schema.live.mailbox import Mailbox, Payload
from schema.live.session import LiveSession
from schema.live.subscriber import (
    REREAD_REASONS,
    Charge,
    LiveObserver,
    RereadReason,
    Send,
    Subscriber,
)

__all__ = [
    "DEBOUNCE_SECONDS",
    "REREAD_REASONS",
    "Charge",
    "ContextFactory",
    "Events",
    "GroupKey",
    "LiveHub",
    "LiveObserver",
    "LiveSession",
    "Mailbox",
    "Payload",
    "RereadReason",
    "Send",
    "Subscriber",
    "user_of",
]
