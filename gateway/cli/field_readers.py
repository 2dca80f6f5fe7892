"""Field usage as the gateway counted it (`gateway_field_usage_total`,
gateway/observability/field_usage.py): who read each schema coordinate, and how many
operations were served in all, from a gateway's `/metrics` text (one replica's totals since
it started, fetched or saved to a file) or from a Prometheus query API (every replica's, over
a window). `insight-gateway usage` and `insight-gateway schema check` both read it here.

With a Prometheus and a window the two instant queries are

    sum by (coordinate, client, client_version) (increase(gateway_field_usage_total[30d]))
    sum(increase(gateway_graphql_operations_total[30d]))

and without a window the same sums of the counters' totals.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlencode, urlsplit
from urllib.request import urlopen

from prometheus_client.parser import text_string_to_metric_families

from gateway.observability.field_usage import METRIC
from gateway.observability.metrics import OPERATIONS_METRIC

TIMEOUT_SECONDS = 30.0
QUERY_PATH = "/api/v1/query"
#: A Prometheus duration (`30d`, `12h`, `1w2d`), checked before it is sent.
WINDOW = re.compile(r"(?:\d+(?:ms|s|m|h|d|w|y))+")


class UsageSourceError(Exception):
    """The metrics source did not answer, or not with field usage."""


@dataclass(frozen=True, slots=True)
class Reader:
    client: str
    version: str
    operations: float


@dataclass(frozen=True, slots=True)
class Usage:
    """The readers of each coordinate, and every operation served in the same span (None
    when the source had no `gateway_graphql_operations_total`)."""

    readers: Mapping[str, list[Reader]] = field(default_factory=dict)
    operations: float | None = None

    def of(self, coordinates: Iterable[str]) -> list[Reader]:
        """The readers of any of `coordinates` (`Type.` stands for every member of the type),
        their operations summed per client and version (for several coordinates, at most
        that many operations: one may read two of them), most operations first."""
        wanted = set(coordinates)
        types = tuple(name for name in wanted if name.endswith("."))
        counts: dict[tuple[str, str], float] = defaultdict(float)
        for coordinate, readers in self.readers.items():
            if coordinate in wanted or (types and coordinate.startswith(types)):
                for reader in readers:
                    counts[reader.client, reader.version] += reader.operations
        found = [Reader(client, version, n) for (client, version), n in counts.items()]
        return sorted(found, key=lambda r: (-r.operations, r.client, r.version))


def window_argument(text: str) -> str:
    """An argparse type: a Prometheus duration (`30d`), refused as bad usage otherwise."""
    if not WINDOW.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a Prometheus duration (e.g. 30d)")
    return text


def count_text(operations: float) -> str:
    """An operation count as printed: whole, or to a tenth (increase() extrapolates)."""
    return f"{operations:,.1f}".removesuffix(".0")


def read_usage(source: str, *, window: str | None = None) -> Usage:
    """Field usage from a Prometheus query API URL (`…/api/v1/query`), or else a gateway's
    /metrics URL or a saved /metrics file (totals only: no window)."""
    if urlsplit(source).path.rstrip("/").endswith(QUERY_PATH):
        return from_prometheus(source, window)
    if window is not None:
        raise UsageSourceError("--window needs a Prometheus query API URL (…/api/v1/query)")
    return from_metrics_text(metrics_text(source))


def query_api(url: str) -> str:
    """A Prometheus' query API URL, from its base URL (`http://prometheus:9090`) or itself."""
    base = url.rstrip("/")
    return base if base.endswith(QUERY_PATH) else base + QUERY_PATH


def metrics_text(source: str) -> str:
    """The /metrics text of a URL (http or https) or of a saved file."""
    if urlsplit(source).scheme in ("http", "https"):
        return _get(source, {})
    try:
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageSourceError(f"cannot read {source}: {error}") from error


def from_metrics_text(text: str) -> Usage:
    counted: list[tuple[Mapping[str, str], float]] = []
    operations: float | None = None
    try:
        families = list(text_string_to_metric_families(text))
    except ValueError as error:
        raise UsageSourceError(f"the answer is not Prometheus' text format: {error}") from error
    for family in families:
        if family.name == OPERATIONS_METRIC:
            totals = [s.value for s in family.samples if s.name == f"{OPERATIONS_METRIC}_total"]
            operations = sum(totals)
        if family.name == METRIC:
            counted += [(s.labels, s.value) for s in family.samples if s.name == f"{METRIC}_total"]
    return Usage(_readers(counted), operations)


def from_prometheus(url: str, window: str | None) -> Usage:
    readers = _readers(_query(url, _counted(f"{METRIC}_total", window, by=True)))
    served = _query(url, _counted(f"{OPERATIONS_METRIC}_total", window, by=False))
    return Usage(readers, sum(value for _, value in served) if served else None)


def _readers(counted: Iterable[tuple[Mapping[str, str], float]]) -> dict[str, list[Reader]]:
    """The readers of each coordinate, from the field usage series' labels and values."""
    readers: dict[str, list[Reader]] = defaultdict(list)
    for labels, value in counted:
        if value > 0:
            readers[labels["coordinate"]].append(
                Reader(labels["client"], labels.get("client_version", ""), value)
            )
    return dict(readers)


def _counted(series: str, window: str | None, *, by: bool) -> str:
    counted = f"increase({series}[{window}])" if window is not None else series
    grouping = " by (coordinate, client, client_version)" if by else ""
    return f"sum{grouping} ({counted})"


def _query(url: str, query: str) -> list[tuple[dict[str, str], float]]:
    try:
        answer = json.loads(_get(url, {"query": query}))
        results = answer["data"]["result"] if answer.get("status") == "success" else None
        if results is None:
            raise UsageSourceError(f"{url} refused the query: {answer.get('error', answer)}")
        return [(result["metric"], float(result["value"][1])) for result in results]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
        raise UsageSourceError(f"{url} did not answer as a Prometheus query API") from error


def _get(url: str, params: dict[str, str]) -> str:
    """The body of a GET (the standard library's client: the image has no other)."""
    if urlsplit(url).scheme not in ("http", "https"):
        raise UsageSourceError(f"{url} is not an http(s) URL")
    full = f"{url}?{urlencode(params)}" if params else url
    try:
        with urlopen(full, timeout=TIMEOUT_SECONDS) as response:
            body: bytes = response.read()
    except HTTPError as error:
        raise UsageSourceError(f"{url} answered HTTP {error.code}{_reason(error)}") from error
    except (URLError, OSError) as error:
        raise UsageSourceError(f"{url} did not answer: {error}") from error
    return body.decode("utf-8", errors="replace")


def _reason(error: HTTPError) -> str:
    """Prometheus' own reason for refusing a query (`{"error": ...}`), if it gave one."""
    try:
        answer = json.loads(error.read())
    except (ValueError, OSError):
        return ""
    return f": {answer['error']}" if isinstance(answer, dict) and "error" in answer else ""
