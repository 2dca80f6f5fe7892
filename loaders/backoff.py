"""Jittered exponential backoff, for the loops that retry on their own (the stream readers,
the Redis change feed): the ceiling doubles with each failure up to a cap, and the pause is
drawn between half the ceiling and the ceiling, so that replicas do not retry in step."""

from __future__ import annotations

import random

#: Past this many doublings the ceiling is the cap anyway; the bound keeps `2 **` small.
MAX_DOUBLINGS = 16


def backoff_seconds(doublings: int, base: float, cap: float) -> float:
    """The pause after a failure: ceiling `min(cap, base * 2 ** doublings)`, jittered."""
    ceiling = min(cap, base * 2 ** min(doublings, MAX_DOUBLINGS))
    return random.uniform(ceiling / 2, ceiling)
