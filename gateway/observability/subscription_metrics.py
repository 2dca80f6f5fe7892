"""The subscriptions' metrics, on the app's registry (gateway/observability/metrics.py)."""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge

from schema.live import REREAD_REASONS, RereadReason


class SubscriptionMetrics:
    """Open sockets and subscriptions (gauges), events sent and re-reads (counters).

    A `LiveObserver` of the hub (schema/live): `reread(reason)` and `event()` count."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.connections = Gauge(
            "gateway_subscription_connections",
            "WebSocket connections open on /graphql (graphql-transport-ws)",
            registry=registry,
        )
        self.subscriptions = Gauge(
            "gateway_subscriptions",
            "Subscriptions open (userChanged, viewerChanged)",
            registry=registry,
        )
        self.events = Counter(
            "gateway_subscription_events",
            "Subscription events sent (a `next` message with a User)",
            registry=registry,
        )
        self.rereads = Counter(
            "gateway_subscription_rereads",
            "Re-reads of one user for a group of identical subscriptions (one per change "
            "per distinct document, variables and read scope, after coalescing), by why: "
            "change, initial, resync or clock",
            ["reason"],
            registry=registry,
        )
        for reason in REREAD_REASONS:
            # Every reason is a series from the start, so that rates and ratios see zeros.
            self.rereads.labels(reason)

    def count_subscriptions(self, count: Callable[[], int]) -> None:
        """The gauge reads the hub's count when scraped."""
        self.subscriptions.set_function(lambda: float(count()))

    def reread(self, reason: RereadReason) -> None:
        self.rereads.labels(reason).inc()

    def event(self) -> None:
        self.events.inc()
