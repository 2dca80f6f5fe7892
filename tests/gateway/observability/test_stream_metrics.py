"""The stream metrics: the lag of each shard read here (now minus its position, at scrape
time), gone with the lease; the feed's state and the leases held, read when scraped."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from gateway.observability.stream_metrics import StreamMetrics
from loaders.live.changes import Change, MemoryChangeFeed, ShardPosition
from loaders.tables import Table, TableNames


async def test_lag_per_shard_follows_the_positions_and_leaves_with_the_lease() -> None:
    registry = CollectorRegistry()
    now = [1000.0]
    held = [2]
    feed = MemoryChangeFeed()
    metrics = StreamMetrics(registry, TableNames(), feed, lambda: held[0], lambda: now[0])

    metrics.position(ShardPosition(Table.PAVE, "shardId-1", 990.0))
    metrics.position(ShardPosition(Table.BALANCE_SETTINGS, "shardId-2", 999.5))
    now[0] = 1001.0
    metrics.position(ShardPosition(Table.PAVE, "shardId-1", 1000.0))
    metrics.records_read(Table.PAVE, "shardId-1", 7)
    metrics.lease_taken(Table.PAVE, "shardId-1", takeover=True)
    metrics.lease_taken(Table.PAVE, "shardId-3", takeover=False)
    await feed.publish([Change(Table.PAVE, "USERS#u1"), Change(Table.PAVE, "USERS#u2")])
    text = generate_latest(registry).decode()

    assert (
        registry.get_sample_value(
            "gateway_change_feed_lag_seconds", {"table": "site-pave", "shard": "shardId-1"}
        )
        == 1.0
    )
    assert (
        registry.get_sample_value(
            "gateway_change_feed_lag_seconds",
            {"table": "user-balance-settings", "shard": "shardId-2"},
        )
        == 1.5
    )
    assert registry.get_sample_value("gateway_change_feed_connected") == 1.0
    assert registry.get_sample_value("gateway_stream_leases_held") == 2.0
    assert registry.get_sample_value("gateway_stream_lease_takeovers_total") == 1.0
    assert registry.get_sample_value("gateway_stream_records_total") == 7.0
    assert registry.get_sample_value("gateway_change_feed_changes_received_total") == 2.0
    assert "shardId-1" in text

    metrics.lease_dropped(Table.PAVE, "shardId-1")
    held[0] = 1
    text = generate_latest(registry).decode()
    assert "shardId-1" not in text
    assert "shardId-2" in text
    assert registry.get_sample_value("gateway_stream_leases_held") == 1.0
