"""Field usage per client: `gateway_field_usage_total{coordinate, client, client_version}`.

Each executed operation counts once for every schema coordinate it reads (`Query.users`,
`Query.users(ids:)`, `User.alert`, an input field or enum value written literally), under
the client that sent it: `apollographql-client-name` / `apollographql-client-version`
(Apollo's convention), else `graphql-client-name` / `graphql-client-version`, else
`unknown`. Before a field is deprecated and removed, this says who still reads it
(`insight-gateway usage`, docs/field-usage.md).

A request pays a dict look-up, not a walk: an operation's coordinates are computed once per
prepared operation (schema/prepared.py), as the cost is; the request adds one to a pending
count keyed by those coordinates and its client. A scrape of `/metrics` folds the pending
counts into per-coordinate totals. Client names are bounded: the first `max_clients` names
seen are labels, later ones `other`; each name keeps at most `MAX_VERSIONS` versions, later
ones `other`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry
from strawberry.extensions import SchemaExtension

from schema.extensions.coordinates import Coordinates, coordinates_of
from schema.graphql_schema import graphql_schema
from schema.prepared import owner_of

METRIC = "gateway_field_usage"
UNKNOWN = "unknown"
OTHER = "other"
#: Versions labelled per client name; later ones are `other`.
MAX_VERSIONS = 10
#: Characters of a client name or version kept (a header may hold anything).
MAX_LABEL_CHARS = 64
#: Pending (operation, client) counts folded into the totals at the latest past this many.
MAX_PENDING = 10_000

NAME_HEADERS = ("apollographql-client-name", "graphql-client-name")
VERSION_HEADERS = ("apollographql-client-version", "graphql-client-version")

_client: ContextVar[tuple[str, str]] = ContextVar("graphql_client", default=(UNKNOWN, ""))


def bind_client(headers: Mapping[str, str]) -> None:
    """The client of the current request (and the tasks it starts), from its headers."""
    name = next((headers[h] for h in NAME_HEADERS if headers.get(h)), UNKNOWN)
    version = next((headers[h] for h in VERSION_HEADERS if headers.get(h)), "")
    _client.set((_label(name) or UNKNOWN, _label(version)))


def _label(text: str) -> str:
    return "".join(c for c in text.strip()[:MAX_LABEL_CHARS] if c.isprintable())


class ClientLabels:
    """Bounded client labels: the first `max_clients` names, `MAX_VERSIONS` versions each."""

    def __init__(self, max_clients: int) -> None:
        self.max_clients = max_clients
        self._labels: dict[tuple[str, str], tuple[str, str]] = {}
        self._versions: dict[str, int] = {}

    def __call__(self, client: tuple[str, str]) -> tuple[str, str]:
        label = self._labels.get(client)
        if label is not None:
            return label
        name = client[0]
        versions = self._versions.get(name)
        if versions is None:
            if len(self._versions) >= self.max_clients and name != UNKNOWN:
                return (OTHER, "")
            versions = 0
        if versions >= MAX_VERSIONS:
            return (name, OTHER)
        self._versions[name] = versions + 1
        self._labels[client] = client
        return client


class FieldUsage(Collector):
    """The counter, as a collector on the app's registry, and the schema extension that
    feeds it (`schema_extension`, a factory for build_schema)."""

    def __init__(self, registry: CollectorRegistry, max_clients: int = 50) -> None:
        self.labels = ClientLabels(max_clients)
        self._pending: dict[tuple[Coordinates, tuple[str, str]], int] = {}
        self._totals: dict[tuple[str, str, str], int] = {}
        registry.register(self)

    def schema_extension(self) -> SchemaExtension:
        return FieldUsageExtension(self)

    def count(self, coordinates: Coordinates) -> None:
        """One operation of the current request's client read `coordinates`."""
        key = (coordinates, self.labels(_client.get()))
        self._pending[key] = self._pending.get(key, 0) + 1
        if len(self._pending) > MAX_PENDING:
            self._fold()

    def _fold(self) -> None:
        pending, self._pending = self._pending, {}
        for (coordinates, (client, version)), count in pending.items():
            for name in coordinates.names:
                key = (name, client, version)
                self._totals[key] = self._totals.get(key, 0) + count

    def totals(self) -> dict[tuple[str, str, str], int]:
        """Operations per (coordinate, client, client version) so far."""
        self._fold()
        return dict(self._totals)

    def describe(self) -> Iterable[CounterMetricFamily]:
        return [self._family()]

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = self._family()
        for (coordinate, client, version), count in sorted(self.totals().items()):
            family.add_metric([coordinate, client, version], count)
        yield family

    def _family(self) -> CounterMetricFamily:
        return CounterMetricFamily(
            METRIC,
            "Executed operations that read each schema coordinate (type fields, arguments, "
            "input fields and enum values written literally), by client name and version",
            labels=["coordinate", "client", "client_version"],
        )


class FieldUsageExtension(SchemaExtension):
    """Counts an operation that passed its limits and validation, as it starts executing
    (one refused later by its budget was still asked for: it counts)."""

    def __init__(self, usage: FieldUsage) -> None:
        self.usage = usage

    def on_execute(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None and not context.pre_execution_errors:
            schema = graphql_schema(context.schema)
            owner = owner_of(schema)
            if owner is None:  # a schema not built by build_schema: nothing remembered
                names = coordinates_of(schema, document, context.operation_name)
                self.usage.count(Coordinates(names))
            else:
                operation = owner.prepare(schema, context.query, document, context.operation_name)
                self.usage.count(operation.coordinates())
        yield
