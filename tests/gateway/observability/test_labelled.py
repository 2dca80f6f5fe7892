"""A metric's kept children count into the metric itself, one child per label set."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

from gateway.observability.labelled import Children


def test_a_label_set_has_one_child_and_its_counts_are_the_metrics() -> None:
    registry = CollectorRegistry()
    requests = Counter("requests", "Requests", ["path", "status"], registry=registry)
    of = Children(requests)
    assert of("/graphql", "200") is of("/graphql", "200") is requests.labels("/graphql", "200")
    of("/graphql", "200").inc()
    of("/graphql", "200").inc()
    of("/graphql", "429").inc()
    assert registry.get_sample_value("requests_total", {"path": "/graphql", "status": "200"}) == 2
    assert registry.get_sample_value("requests_total", {"path": "/graphql", "status": "429"}) == 1


def test_a_histograms_children_observe_into_it() -> None:
    registry = CollectorRegistry()
    seconds = Histogram("seconds", "Seconds", ["path"], buckets=(0.1, 1), registry=registry)
    Children(seconds)("/graphql").observe(0.5)
    assert registry.get_sample_value("seconds_count", {"path": "/graphql"}) == 1
    assert registry.get_sample_value("seconds_bucket", {"path": "/graphql", "le": "1.0"}) == 1
    assert registry.get_sample_value("seconds_bucket", {"path": "/graphql", "le": "0.1"}) == 0
