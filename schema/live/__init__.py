"""Live data: the subscriptions' hub, fed by the change feed (loaders/live/changes), re-reading
through the schema and handing each subscriber its answers (SPEC section 7).

- `ports.py`: what the hub needs from outside (the answer's form, send, charge, observe,
  the re-read's Context);
- `mailbox.py`, `subscriber.py`: one subscription, its pending answers and its budget;
- `charges.py`: a fan-out's budget charges, one per principal;
- `groups.py`: the group index, subscriptions grouped by what their answer depends on;
- `schedule.py`: when each group is re-read (debounce, retries, TTLs, midnight);
- `reread.py`: the re-read itself, and its answer handed out;
- `hub.py`: the hub, the change feed's listener, over those three;
- `session.py`: what a subscription's resolver needs from its transport.
"""

from schema.live.groups import GroupKey, user_of
from schema.live.hub import LiveHub
from schema.live.mailbox import Mailbox
from schema.live.ports import REREAD_REASONS, Charge, Payload, RereadReason, Send
from schema.live.session import HandedOver, LiveSession
from schema.live.subscriber import Subscriber

__all__ = [
    "REREAD_REASONS",
    "Charge",
    "GroupKey",
    "HandedOver",
    "LiveHub",
    "LiveSession",
    "Mailbox",
    "Payload",
    "RereadReason",
    "Send",
    "Subscriber",
    "user_of",
]
