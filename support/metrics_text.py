"""Reading a `/metrics` page in tests, with prometheus_client's own parser (never by hand):
`samples(text)` for every sample, `value` for one series, `series` for each of one name,
`total` and `by_label` to add them up. Sample names are as exposed (a counter's carry `_total`)."""

from __future__ import annotations

from collections import defaultdict

from prometheus_client.parser import text_string_to_metric_families

#: (sample name, its labels) → value.
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    """Every sample of a Prometheus text exposition."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _read(text: str | Samples) -> Samples:
    return samples(text) if isinstance(text, str) else text


def value(text: str | Samples, name: str, **labels: str) -> float:
    """The sample `name` with exactly these labels; 0.0 when the page has none (a labelled
    counter shows no series before its first count)."""
    return _read(text).get((name, frozenset(labels.items())), 0.0)


def series(text: str | Samples, name: str) -> list[tuple[dict[str, str], float]]:
    """Each sample `name`: its labels and its value."""
    return [
        (dict(sample_labels), found)
        for (sample, sample_labels), found in _read(text).items()
        if sample == name
    ]


def total(text: str | Samples, name: str, **labels: str) -> float:
    """The sum of the samples `name` whose labels include these (all of them without any)."""
    wanted = frozenset(labels.items())
    return sum(
        found
        for (sample, sample_labels), found in _read(text).items()
        if sample == name and wanted <= sample_labels
    )


def by_label(text: str | Samples, name: str, label: str) -> dict[str, float]:
    """The samples `name` added up by the value of one of their labels."""
    sums: defaultdict[str, float] = defaultdict(float)
    for (sample, sample_labels), found in _read(text).items():
        if sample == name:
            sums[dict(sample_labels)[label]] += found
    return dict(sums)
