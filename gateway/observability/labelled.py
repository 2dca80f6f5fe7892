"""A metric's labelled children, each found once: prometheus_client's `labels` checks the
label count, converts every value with `str` and takes the metric's lock on every call,
which a request's half-dozen counts and observations repeat for the same few label sets."""

from __future__ import annotations

from typing import Generic, TypeVar

from prometheus_client.metrics import MetricWrapperBase

__all__ = ["Children"]

Metric = TypeVar("Metric", bound=MetricWrapperBase)


class Children(Generic[Metric]):
    """`children(*values)` is `metric.labels(*values)`, kept by its values: for a metric
    whose label sets are bounded and never removed."""

    __slots__ = ("_kept", "metric")

    def __init__(self, metric: Metric) -> None:
        self.metric = metric
        self._kept: dict[tuple[str, ...], Metric] = {}

    def __call__(self, *values: str) -> Metric:
        child = self._kept.get(values)
        if child is None:
            child = self._kept[values] = self.metric.labels(*values)
        return child
