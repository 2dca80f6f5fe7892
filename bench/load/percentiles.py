"""The latency percentiles every table of `make load` prints."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

__all__ = ["percentile_ms"]


def percentile_ms(latencies: Sequence[float], share: float) -> float:
    """The `share` percentile of `latencies` (seconds), in ms: the median at 0.5, else the
    nearest rank at or below; NaN for none."""
    ordered = sorted(latencies)
    if not ordered:
        return float("nan")
    if share == 0.5:
        return statistics.median(ordered) * 1000
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000
