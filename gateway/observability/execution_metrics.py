"""How operations were executed, on the app's registry: read from the prepared operations'
own counts when Prometheus scrapes (`schema.prepared.CompletionCounts`)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

from schema.prepared import PreparedOperations


class ExecutionMetrics(Collector):
    """`gateway_operations_executed_total{path}`: `compiled` (answered by the operation's
    compiled form), `fell_back` (its compiled form ran, then left the answer to graphql-core:
    a refusal, a failed read, an argument out of range) and `declined` (no compiled form:
    introspection, a mutation, a field or directive it does not compile)."""

    def __init__(self, registry: CollectorRegistry, prepared: PreparedOperations) -> None:
        self._counts = prepared.completion
        registry.register(self)

    def collect(self) -> Iterator[Metric]:
        executed = CounterMetricFamily(
            "gateway_operations_executed",
            "Operations executed, by path: compiled (the compiled form answered), fell_back "
            "(it ran, then graphql-core answered: an error to report), declined (graphql-core "
            "alone: introspection, mutations, anything the compiler does not take)",
            labels=["path"],
        )
        counts = self._counts
        executed.add_metric(["compiled"], counts.compiled)
        executed.add_metric(["fell_back"], counts.fell_back)
        executed.add_metric(["declined"], counts.declined)
        yield executed
