"""The live phase's figures per transport: its subscribers on sockets (graphql-transport-ws)
and on SSE streams (graphql-sse), judged alike, reported in one table, each against its
targets. A socket comes back after a restart with `initial: true`; an SSE stream with
`Last-Event-ID`, after the `retry:` its replica sent at SIGTERM."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from bench.load.percentiles import percentile_ms

__all__ = ["NAMES", "P99_TARGET_MS", "TransportFigures", "problems", "table"]

#: The transports, as the subscribers name themselves, with the report's name for each.
NAMES = {"websocket": "WebSocket", "sse": "SSE"}
#: Write → event p99 through the rolling restart, per transport: SSE must meet it (issue 46);
#: sockets are reported beside it (they come back with `initial: true`, after their
#: client's own pause, so a restart is their p99).
P99_TARGET_MS = {"sse": 2000.0}


@dataclass
class TransportFigures:
    subscriptions: int = 0
    connections: int = 0
    latencies: list[float] = field(default_factory=list)
    #: The latencies of the writes sent outside the restart (SIGTERM to ready again).
    quiet_latencies: list[float] = field(default_factory=list)
    missed: int = 0
    reconnects: int = 0

    def percentile_ms(self, share: float, *, quiet: bool = False) -> float:
        return percentile_ms(self.quiet_latencies if quiet else self.latencies, share)


def table(figures: dict[str, TransportFigures]) -> list[str]:
    """One row a transport: the p50 and p99 over every (write, subscription) pair, and over
    the writes sent outside the restart."""
    lines = [
        "| transport | subscriptions on connections | pairs | p50 ms | p99 ms | p99 target | "
        "outside the restart: p50 / p99 ms | missed | reconnects |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, shown in figures.items():
        target = P99_TARGET_MS.get(kind)
        lines.append(
            f"| {NAMES.get(kind, kind)} | {shown.subscriptions} on {shown.connections} | "
            f"{len(shown.latencies)} | {shown.percentile_ms(0.5):.0f} | "
            f"{shown.percentile_ms(0.99):.0f} | "
            + (f"≤ {target:,.0f}" if target is not None else "-")
            + f" | {shown.percentile_ms(0.5, quiet=True):.0f} / "
            f"{shown.percentile_ms(0.99, quiet=True):.0f} | {shown.missed} | "
            f"{shown.reconnects} |"
        )
    return lines


def problems(figures: dict[str, TransportFigures]) -> Iterable[str]:
    """Each transport's p99 over its target (a transport with no pairs has missed it)."""
    for kind, target in P99_TARGET_MS.items():
        shown = figures.get(kind)
        if shown is None:
            continue
        p99 = shown.percentile_ms(0.99)
        if not p99 <= target:
            yield f"live: {NAMES[kind]} write → event p99 {p99:.0f} ms (target ≤ {target:.0f})"
