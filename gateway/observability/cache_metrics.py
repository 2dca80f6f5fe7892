"""The coherent cache's metrics, on the app's registry: read from the cache's own counters
when Prometheus scrapes, so a cached read costs no metric update of its own."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from loaders.cache import CoherentCache
from loaders.live.feed_watch import DISCONNECTED, LAGGING, NO_POSITION

BYPASS_REASONS = (DISCONNECTED, NO_POSITION, LAGGING)


class CacheMetrics(Collector):
    """`gateway_cache_hits`, `_misses`, `_bypasses{reason}`, `_evictions` (counters) and
    `gateway_cache_bytes` (gauge) of the cache `source` gives (None: the cache is off or
    not open yet, every figure 0)."""

    def __init__(
        self, registry: CollectorRegistry, source: Callable[[], CoherentCache | None]
    ) -> None:
        self._source = source
        registry.register(self)

    def collect(self) -> Iterator[Metric]:
        cache = self._source()
        hits = CounterMetricFamily(
            "gateway_cache_hits", "Reads the coherent cache answered (no DynamoDB call)"
        )
        misses = CounterMetricFamily(
            "gateway_cache_misses", "Reads the coherent cache did not hold (read from DynamoDB)"
        )
        bypasses = CounterMetricFamily(
            "gateway_cache_bypasses",
            "Reads sent to DynamoDB without the cache because the change feed was not whole: "
            "disconnected, no_position (a streamed table without a shard position yet), "
            "lagging (a shard's position older than INSIGHT_CACHE_MAX_LAG_SECONDS)",
            labels=["reason"],
        )
        evictions = CounterMetricFamily(
            "gateway_cache_evictions",
            "Partitions evicted (least recently used) to keep within INSIGHT_CACHE_MAX_BYTES",
        )
        size = GaugeMetricFamily(
            "gateway_cache_bytes", "Measured bytes the coherent cache holds (an upper estimate)"
        )
        hits.add_metric([], cache.hits if cache else 0)
        misses.add_metric([], cache.misses if cache else 0)
        for reason in BYPASS_REASONS:
            bypasses.add_metric([reason], cache.bypasses.get(reason, 0) if cache else 0)
        evictions.add_metric([], cache.store.evictions if cache else 0)
        size.add_metric([], cache.store.bytes if cache else 0)
        yield from (hits, misses, bypasses, evictions, size)
