"""Jittered exponential backoff, the one every retrying loop uses (DynamoDB's unprocessed
keys, the stream readers, the Redis change feed, the live hub's re-reads): the ceiling
doubles with each failure up to a cap, and the pause is drawn between half the ceiling and
the ceiling, so that replicas do not retry in step."""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["Backoff"]

#: Past this many doublings the ceiling is the cap anyway; the bound keeps `2 **` small.
MAX_DOUBLINGS = 16


@dataclass(frozen=True, slots=True)
class Backoff:
    """`base` seconds after the first failure, doubling up to `cap`."""

    base: float
    cap: float

    def ceiling(self, doublings: int) -> float:
        return min(self.cap, self.base * 2.0 ** min(doublings, MAX_DOUBLINGS))

    def pause(self, doublings: int) -> float:
        """The pause after `doublings + 1` failures in a row: jittered below the ceiling."""
        ceiling = self.ceiling(doublings)
        return random.uniform(ceiling / 2, ceiling)
