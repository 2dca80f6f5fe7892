"""/metrics carries the process's own memory and CPU (the dashboard's process row, the memory
limit's check), from each app's own registry."""

from __future__ import annotations

from prometheus_client.exposition import generate_latest

from gateway.observability.metrics import Metrics
from support.metrics_text import samples, value


def test_process_metrics_are_in_the_apps_registry() -> None:
    first, second = Metrics(), Metrics()
    for metrics in (first, second):
        found = samples(generate_latest(metrics.registry).decode())
        assert value(found, "process_resident_memory_bytes") > 1024 * 1024
        assert value(found, "process_cpu_seconds_total") > 0
        assert value(found, "process_open_fds") >= 3
