"""The change feed's and stream readers' metrics, on the app's registry:

- `gateway_change_feed_lag_seconds{table,shard}`: now minus the time the shard's reader
  knows it is current up to, for each shard this replica reads;
- `gateway_change_feed_connected`: 1 while the feed reaches every replica (Redis), else 0;
- `gateway_stream_leases_held`: shard leases this replica holds;
- `gateway_stream_lease_takeovers_total`: leases taken over from an owner that stopped
  heart-beating;
- `gateway_stream_records_total`: stream records read;
- `gateway_change_feed_changes_received_total`: changes this replica's listeners heard (from
  whichever replica read them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge

from loaders.live.changes import Change, ChangeFeed, ShardPosition
from loaders.live.streams import StreamObserver
from loaders.tables import Table, TableNames


class StreamMetrics(StreamObserver):
    def __init__(
        self,
        registry: CollectorRegistry,
        tables: TableNames,
        feed: ChangeFeed,
        leases_held: Callable[[], int],
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._tables = tables
        self._now = wall_clock
        self._as_of: dict[tuple[str, str], float] = {}
        self.lag = Gauge(
            "gateway_change_feed_lag_seconds",
            "Seconds between now and the time up to which a shard this replica reads is known "
            "to be published",
            ["table", "shard"],
            registry=registry,
        )
        self.connected = Gauge(
            "gateway_change_feed_connected",
            "1 while the change feed reaches every replica, 0 while it is cut off",
            registry=registry,
        )
        self.connected.set_function(lambda: 1.0 if feed.connected else 0.0)
        self.leases = Gauge(
            "gateway_stream_leases_held",
            "DynamoDB Streams shard leases this replica holds",
            registry=registry,
        )
        self.leases.set_function(lambda: float(leases_held()))
        self.takeovers = Counter(
            "gateway_stream_lease_takeovers",
            "Shard leases taken over from an owner whose lease ran out",
            registry=registry,
        )
        self.records = Counter(
            "gateway_stream_records",
            "DynamoDB Streams records read",
            registry=registry,
        )

        self.received = Counter(
            "gateway_change_feed_changes_received",
            "Changes this replica's listeners heard on the change feed",
            registry=registry,
        )
        feed.listen(_Received(self.received))

    def records_read(self, table: Table, shard_id: str, count: int) -> None:
        self.records.inc(count)

    def position(self, position: ShardPosition) -> None:
        labels = (self._tables.name(position.table), position.shard_id)
        if labels not in self._as_of:
            self.lag.labels(*labels).set_function(lambda: self._now() - self._as_of[labels])
        self._as_of[labels] = position.current_as_of

    def lease_taken(self, table: Table, shard_id: str, *, takeover: bool) -> None:
        if takeover:
            self.takeovers.inc()

    def lease_dropped(self, table: Table, shard_id: str) -> None:
        labels = (self._tables.name(table), shard_id)
        if self._as_of.pop(labels, None) is not None:
            self.lag.remove(*labels)


class _Received:
    """A feed listener that counts the changes heard."""

    def __init__(self, counter: Counter) -> None:
        self._counter = counter

    def changes(self, changes: Sequence[Change]) -> None:
        self._counter.inc(len(changes))

    def position(self, position: ShardPosition) -> None:
        return None

    def resync(self, reason: str) -> None:
        return None

    def disconnected(self) -> None:
        return None
