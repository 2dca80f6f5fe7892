"""/metrics carries the process's own memory and CPU (the dashboard's process row, the memory
limit's check), from each app's own registry."""

from __future__ import annotations

from prometheus_client.exposition import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from gateway.observability.metrics import Metrics


def test_process_metrics_are_in_the_apps_registry() -> None:
    first, second = Metrics(), Metrics()
    for metrics in (first, second):
        families = {
            family.name: family.samples[0].value
            for family in text_string_to_metric_families(generate_latest(metrics.registry).decode())
            if family.name.startswith("process_")
        }
        assert families["process_resident_memory_bytes"] > 1024 * 1024
        assert families["process_cpu_seconds"] > 0
        assert families["process_open_fds"] >= 3
