"""The sockets one replica holds, bounded (INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS), and the
process's open-file limit raised to hold them.

Over the bound, an upgrade is refused with 503 and `Retry-After` before the WebSocket is
accepted: the balancer (deploy/nginx.conf retries a 503 on the next replica) sends it
elsewhere, and no replica runs out of memory or file descriptors."""

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
    """The WebSockets open on this replica, from the upgrade until the socket is done."""

    def __init__(self, maximum: int) -> None:
        self.maximum = maximum
        self.open = 0

    def acquire(self) -> bool:
        """Count one more socket; False (and nothing counted) when the replica is full."""
        if self.open >= self.maximum:
            return False
        self.open += 1
        return True

    def release(self) -> None:
        self.open = max(0, self.open - 1)


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
