"""The sockets one replica holds, bounded (INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS), and the
process's open-file limit raised to hold them.

Over the bound, an upgrade is refused with 503 and `Retry-After` before the WebSocket is
accepted: the balancer (deploy/nginx.conf retries a 503 on the next replica) sends it
elsewhere, and no replica runs out of memory or file descriptors.

Only an authenticated socket holds one of those places: its token came with the upgrade
(`Authorization`), or its `connection_init` was accepted. Until then a socket counts
against a small allowance of its own (INSIGHT_SUBSCRIPTIONS_MAX_UNAUTHENTICATED); once
that is spent new upgrades without a token are refused, and sockets that wait for their
`connection_init` never take the places of authenticated ones."""

from __future__ import annotations

import logging
import resource

logger = logging.getLogger("gateway.subscriptions")

#: What a refused upgrade's `Retry-After` says: long enough for the autoscaler to add a
#: replica or for sockets to close, short enough for a frontend to come back soon.
RETRY_AFTER_SECONDS = 5
#: File descriptors beyond the sockets: DynamoDB's and Redis's connections, HTTP requests,
#: the listening socket, logs.
SPARE_FILES = 1024


class ReplicaSockets:
    """The authenticated WebSockets open on this replica (`open`), and those still waiting
    for their `connection_init` (`waiting`, at most `unauthenticated`)."""

    def __init__(self, maximum: int, unauthenticated: int) -> None:
        self.maximum = maximum
        self.unauthenticated = unauthenticated
        self.open = 0
        self.waiting = 0

    def admit(self, *, authenticated: bool) -> SocketSlot | None:
        """A new socket's slot, or None when the replica is full (or, for a socket whose
        token is still to come, the allowance is spent)."""
        if self.open >= self.maximum:
            return None
        if authenticated:
            return SocketSlot(self, authenticated=True) if self.acquire() else None
        if self.waiting >= self.unauthenticated:
            return None
        self.waiting += 1
        return SocketSlot(self, authenticated=False)

    def acquire(self) -> bool:
        """Count one more socket; False (and nothing counted) when the replica is full."""
        if self.open >= self.maximum:
            return False
        self.open += 1
        return True

    def release(self) -> None:
        self.open = max(0, self.open - 1)


class SocketSlot:
    """One socket's place: in the allowance until it authenticates, then the replica's."""

    __slots__ = ("authenticated", "replica")

    def __init__(self, replica: ReplicaSockets, *, authenticated: bool) -> None:
        self.replica = replica
        self.authenticated = authenticated

    def authenticate(self) -> bool:
        """Move from the allowance to a replica place; False (the allowance's place given
        back all the same) when authenticated sockets filled the replica meanwhile."""
        if self.authenticated:
            return True
        self.replica.waiting -= 1
        if not self.replica.acquire():
            self.replica.waiting += 1  # given back by `release`
            return False
        self.authenticated = True
        return True

    def release(self) -> None:
        if self.authenticated:
            self.replica.release()
        else:
            self.replica.waiting = max(0, self.replica.waiting - 1)


def raise_open_file_limit(sockets: int) -> int:
    """Raise the soft open-file limit (RLIMIT_NOFILE) to the hard one, which the container
    runtime sets (commonly 1,048,576; a soft limit of 1,024 would stop a replica near 1,000
    sockets). Returns the soft limit now in force, and warns when it cannot hold `sockets`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as error:
            logger.warning("cannot raise the open-file limit from %d to %d: %s", soft, hard, error)
    needed = sockets + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < needed:
        logger.warning(
            "the open-file limit (%d) cannot hold INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS (%d) "
            "sockets: raise it to at least %d (docs/operations.md)",
            soft,
            sockets,
            needed,
        )
    return soft
