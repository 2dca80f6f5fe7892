"""The sockets each principal (a token's `sub`) holds open on this replica, bounded.

One token could otherwise open sockets without end (each costs the server about 60 KiB,
docs/subscriptions.md), starving every other user of the replica's sockets."""

from __future__ import annotations

from collections import Counter


class PrincipalSockets:
    def __init__(self, maximum: int) -> None:
        self.maximum = maximum
        self._open: Counter[str] = Counter()

    def full(self, sub: str) -> bool:
        return self._open[sub] >= self.maximum

    def acquire(self, sub: str) -> bool:
        """Count one more socket for `sub`; False (and nothing counted) when it holds the
        maximum already."""
        if self.full(sub):
            return False
        self._open[sub] += 1
        return True

    def release(self, sub: str) -> None:
        self._open[sub] -= 1
        if self._open[sub] <= 0:
            del self._open[sub]

    def held(self, sub: str) -> int:
        return self._open[sub]
