"""A subscriber's pending answers: the latest per user, bounded by the users it watches."""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from schema.live.ports import Payload


class Mailbox:
    """What a subscriber has yet to send, one answer per user id at most.

    A slow client never makes it grow: a newer answer for a user replaces the one still
    waiting (an intermediate state is dropped), so the latest is never lost and the
    mailbox holds at most as many answers as the subscription watches users (≤ 100).
    Answers leave in the order their users first became pending."""

    def __init__(self) -> None:
        self._pending: OrderedDict[str, Payload] = OrderedDict()
        self._ready = asyncio.Event()
        #: Answers replaced before they were sent (a slow client, or a budget's wait).
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._pending)

    def put(self, user_id: str, payload: Payload) -> None:
        if user_id in self._pending:
            self.dropped += 1
        self._pending[user_id] = payload
        self._ready.set()

    def take(self, user_id: str) -> Payload | None:
        """The newer answer for `user_id` that came while an older one waited, if any."""
        return self._pending.pop(user_id, None)

    async def get(self) -> tuple[str, Payload]:
        while not self._pending:
            self._ready.clear()
            await self._ready.wait()
        return self._pending.popitem(last=False)
