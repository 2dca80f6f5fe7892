"""A subscriber's pending answers: the latest per user, bounded by the users it watches."""

from __future__ import annotations

from collections import OrderedDict

from schema.live.ports import Payload


class Mailbox:
    """What a subscriber has yet to send, one answer per user id at most.

    A slow client never makes it grow: a newer answer for a user replaces the one still
    waiting (an intermediate state is dropped), so the latest is never lost and the
    mailbox holds at most as many answers as the subscription watches users (≤ 100).
    Answers leave in the order their users first became pending. It holds nothing (not
    even its dict) while nothing waits: an idle subscription is most of them."""

    __slots__ = ("_pending", "dropped")

    def __init__(self) -> None:
        self._pending: OrderedDict[str, Payload] | None = None
        #: Answers replaced before they were sent (a slow client, or a budget's wait).
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._pending) if self._pending else 0

    def put(self, user_id: str, payload: Payload) -> None:
        if self._pending is None:
            self._pending = OrderedDict()
        elif user_id in self._pending:
            self.dropped += 1
        self._pending[user_id] = payload

    def take(self, user_id: str) -> Payload | None:
        """The newer answer for `user_id` that came while an older one waited, if any."""
        return self._pending.pop(user_id, None) if self._pending else None

    def first(self) -> tuple[str, Payload] | None:
        """The answer that has waited longest, taken out; None when none waits."""
        if not self._pending:
            self._pending = None
            return None
        return self._pending.popitem(last=False)
