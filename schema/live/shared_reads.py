"""Re-reads that start in the same event-loop tick share one request's reads: their documents
execute side by side over one set of loaders, so their compiled operations ask for every key
of every one of them before the first wait, and their point reads go out together in
BatchGetItem pages of up to 100 keys, their Queries side by side: one wait for up to
`MAX_USERS` users, like a dashboard's `users(ids:)`, where each group alone would send its
own calls. The scheduler starts the groups woken together in one tick
(`schema.live.schedule`); a burst of reconnecting clients' initial states is read so too.

Each group keeps its own Context (its principal, its answer, its errors); only the reads,
their request scope and its deadline are shared. Each group's re-read is timed by its own
user's items (`Expiries.earliest_of`)."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field

from schema.arguments import MAX_USERS
from schema.context import Context
from schema.live.ports import ContextFactory
from schema.principal import Principal

__all__ = ["SharedRead", "SharedReads"]


@dataclass(eq=False, slots=True)
class SharedRead:
    """One set of loaders, and the re-reads still using it."""

    base: Context
    users: set[str] = field(default_factory=set)
    members: int = 0


class SharedReads:
    """Hands each re-read a Context over the reads of this tick's other re-reads."""

    def __init__(self, new_context: ContextFactory, max_users: int = MAX_USERS) -> None:
        self._new_context = new_context
        self._max_users = max_users
        self._open: SharedRead | None = None

    def join(self, principal: Principal, user_id: str) -> tuple[Context, SharedRead]:
        """A Context for `principal`'s re-read of `user_id`, sharing the open read (a new
        one when none is open this tick, or it serves `max_users` others already). Give
        the read back with `leave` once the re-read is over."""
        shared = self._open
        if shared is None or (user_id not in shared.users and len(shared.users) >= self._max_users):
            shared = self._open = SharedRead(self._new_context(principal))
            asyncio.get_running_loop().call_soon(self._close, shared)
            context = shared.base
        else:
            context = dataclasses.replace(shared.base, principal=principal)
        shared.users.add(user_id)
        shared.members += 1
        return context, shared

    def _close(self, shared: SharedRead) -> None:
        # The tick is over: later re-reads start a read of their own.
        if self._open is shared:
            self._open = None

    def leave(self, shared: SharedRead) -> None:
        """A re-read is over; the last one drops the read's items (`UserReads.release`)."""
        shared.members -= 1
        if shared.members == 0:
            if self._open is shared:
                self._open = None
            shared.base.reads.release()
