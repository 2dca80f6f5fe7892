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

    Its groups' re-reads land in its mailbox, and a task sends them while any waits (an
    idle subscription has no task, and no executing stream: an event is executed once per
    group, by the hub). Each answer is charged to the subscriber's budget first (over
    budget, it waits, and a newer one for the same user replaces it), and sent only when
    it differs from the last answer sent for that user."""

    __slots__ = (
        "_charge",
        "_last_sent",
        "_observer",
        "_send",
        "_sending",
        "budget_waits",
        "closed",
        "cost",
        "mailbox",
        "principal",
        "user_ids",
    )

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
        self._sending: asyncio.Task[None] | None = None
        #: Answers that waited for the budget (each wait is one refusal).
        self.budget_waits = 0
        #: Unsubscribed: nothing more is sent.
        self.closed = False

    def offer(self, user_id: str, payload: Payload) -> None:
        """Hand the subscriber an answer for `user_id`; it is sent soon, in order."""
        if self.closed:
            return
        self.mailbox.put(user_id, payload)
        if self._sending is None:
            self._sending = asyncio.get_running_loop().create_task(self._send_pending())

    def close(self) -> None:
        """Unsubscribed: what waits is dropped, and a send under way is cancelled."""
        self.closed = True
        if self._sending is not None:
            self._sending.cancel()  # perhaps before it ever ran: its `finally` would not
            self._sending = None

    async def sent(self) -> None:
        """Wait until nothing waits to be sent."""
        while (sending := self._sending) is not None:
            await asyncio.gather(sending, return_exceptions=True)

    async def _send_pending(self) -> None:
        try:
            while (pending := self.mailbox.first()) is not None:
                user_id, payload = pending
                payload = await self._charged(user_id, payload)
                last = self._last_sent.get(user_id)
                if last is payload or last == payload:
                    continue
                await self._send(payload)
                self._last_sent[user_id] = payload
                self._observer.event()
        except Exception:
            logger.exception("a subscription of %s could not send its event", self.principal.sub)
        finally:
            if not self.closed:
                self._sending = None

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
