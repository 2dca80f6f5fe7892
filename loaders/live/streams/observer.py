"""What the readers and the coordinator report (the gateway's metrics implement it); every
method is a no-op here."""

from __future__ import annotations

from loaders.live.changes import ShardPosition
from loaders.tables import Table


class StreamObserver:
    """What a reader (records, positions) and the coordinator (leases) report."""

    def records_read(self, table: Table, shard_id: str, count: int) -> None:
        return None

    def position(self, position: ShardPosition) -> None:
        return None

    def lease_taken(self, table: Table, shard_id: str, *, takeover: bool) -> None:
        return None

    def lease_dropped(self, table: Table, shard_id: str) -> None:
        return None
