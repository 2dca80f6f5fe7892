"""One subscription: its pending answers, what it last sent, its budget's waits."""

from __future__ import annotations

import asyncio
import logging

from schema.live.mailbox import Mailbox
from schema.live.ports import Charge, LiveObserver, Payload, Send
from schema.principal import Principal

logger = logging.getLogger("gateway.subscriptions")


class Subscriber:
    """One `userChanged`/`viewerChanged` operation of a socket.

    Its groups' re-reads land in its mailbox; `run` (the operation's own task) sends them:
    each charged to the subscriber's budget first (over budget, the answer waits, and a
    newer one for the same user replaces it), and only when it differs from the last
    answer sent for that user."""

    def __init__(
        self,
        *,
        principal: Principal,
        user_ids: tuple[str, ...],
        cost: int,
        send: Send,
        charge: Charge,
        observer: LiveObserver,
    ) -> None:
        self.principal = principal
        self.user_ids = user_ids
        self.cost = cost
        self._send = send
        self._charge = charge
        self._observer = observer
        self.mailbox = Mailbox()
        self._last_sent: dict[str, Payload] = {}
        #: Answers that waited for the budget (each wait is one refusal).
        self.budget_waits = 0

    def offer(self, user_id: str, payload: Payload) -> None:
        self.mailbox.put(user_id, payload)

    async def run(self) -> None:
        """Send answers as they come, until cancelled (the operation completes or the
        socket closes)."""
        while True:
            user_id, payload = await self.mailbox.get()
            payload = await self._charged(user_id, payload)
            last = self._last_sent.get(user_id)
            if last is payload or last == payload:
                continue
            await self._send(payload)
            self._last_sent[user_id] = payload
            self._observer.event()

    async def _charged(self, user_id: str, payload: Payload) -> Payload:
        """The answer to send once its re-read is charged: over budget it waits the
        window's retry time, taking any newer answer for the user that came meanwhile."""
        while True:
            wait = await self._charge(self.principal, self.cost)
            if wait <= 0:
                return payload
            self.budget_waits += 1
            logger.info(
                "subscription of %s over budget: its event for %s waits %.1f s",
                self.principal.sub,
                user_id,
                wait,
            )
            await asyncio.sleep(wait)
            payload = self.mailbox.take(user_id) or payload
