"""Field usage per client: `gateway_field_usage_total{coordinate, client, client_version}`.

Each executed operation counts once for every schema coordinate it reads (`Query.users`,
`Query.users(ids:)`, `User.alert`, an input field or enum value written literally), under
the client that sent it: `apollographql-client-name` / `apollographql-client-version`
(Apollo's convention), else `graphql-client-name` / `graphql-client-version`, else
`unknown`. Before a field is deprecated and removed, this says who still reads it
(`insight-gateway usage`, docs/field-usage.md).

A request pays a dict look-up, not a walk: an operation's coordinates are computed once per
parsed document (the parser cache hands a repeated text the same document) and kept in a
`DocumentMemo`, as the cost is; the request adds one to a pending count keyed by that memo
entry and its client. A scrape of `/metrics` folds the pending counts into per-coordinate
totals. Client names are bounded: the first `max_clients` names seen are labels, later
ones `other`; each name keeps at most `MAX_VERSIONS` versions, later ones `other`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass

from graphql import (
    DocumentNode,
    EnumValueNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    SelectionSetNode,
    ValueNode,
    get_named_type,
)
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry
from strawberry.extensions import SchemaExtension

from schema.document_memo import DocumentMemo
from schema.extensions.measures import executed_operations

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


@dataclass(frozen=True, eq=False, slots=True)
class Coordinates:
    """The schema coordinates one operation of one document reads. Compared and hashed by
    identity: the memo hands every request of a document the same object."""

    names: frozenset[str]


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
        self.memo: DocumentMemo[Coordinates] = DocumentMemo()
        self._pending: dict[tuple[Coordinates, tuple[str, str]], int] = {}
        self._totals: dict[tuple[str, str, str], int] = {}
        registry.register(self)

    def schema_extension(self) -> SchemaExtension:
        return FieldUsageExtension(self)

    def count(
        self, schema: GraphQLSchema, document: DocumentNode, operation_name: str | None
    ) -> None:
        """One operation of the current request's client read `document`'s coordinates."""
        coordinates = self.memo.get(
            document,
            (operation_name, id(schema)),
            lambda: Coordinates(coordinates_of(schema, document, operation_name)),
        )
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
            self.usage.count(context.schema._schema, document, context.operation_name)
        yield


def coordinates_of(
    schema: GraphQLSchema, document: DocumentNode, operation_name: str | None = None
) -> frozenset[str]:
    """Every schema coordinate the executed operation(s) of `document` read: `Type.field`
    for each field (introspection left out), `Type.field(arg:)` for each argument given,
    `Input.field` and `Enum.VALUE` for what an argument's literal holds."""
    found: set[str] = set()
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    walked: set[str] = set()

    def selections(selection_set: SelectionSetNode | None, parent: GraphQLNamedType | None) -> None:
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                field(selection, parent)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                scope = schema.get_type(condition.name.value) if condition else parent
                selections(selection.selection_set, scope)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = fragments.get(name)
                if fragment is not None and name not in walked:
                    walked.add(name)
                    scope = schema.get_type(fragment.type_condition.name.value)
                    selections(fragment.selection_set, scope)

    def field(node: FieldNode, parent: GraphQLNamedType | None) -> None:
        name = node.name.value
        if name.startswith("__") or not isinstance(
            parent, GraphQLObjectType | GraphQLInterfaceType
        ):
            return
        definition = parent.fields.get(name)
        if definition is None:
            return
        found.add(f"{parent.name}.{name}")
        for argument in node.arguments or ():
            declared = definition.args.get(argument.name.value)
            if declared is not None:
                found.add(f"{parent.name}.{name}({argument.name.value}:)")
                literal(argument.value, declared.type)
        selections(node.selection_set, get_named_type(definition.type))

    def literal(value: ValueNode, of_type: GraphQLInputType) -> None:
        named = get_named_type(of_type)
        if isinstance(value, ListValueNode):
            inner = of_type.of_type if isinstance(of_type, GraphQLNonNull) else of_type
            item_type = inner.of_type if isinstance(inner, GraphQLList) else inner
            for item in value.values:
                literal(item, item_type)
        elif isinstance(value, EnumValueNode) and isinstance(named, GraphQLEnumType):
            found.add(f"{named.name}.{value.value}")
        elif isinstance(value, ObjectValueNode) and isinstance(named, GraphQLInputObjectType):
            for given in value.fields:
                declared = named.fields.get(given.name.value)
                if declared is not None:
                    found.add(f"{named.name}.{given.name.value}")
                    literal(given.value, declared.type)

    for operation in executed_operations(document, operation_name):
        root = schema.get_root_type(operation.operation)
        # Introspection (`__schema`, `__type`, `__typename`) names no coordinate of ours.
        selections(operation.selection_set, root)
    return frozenset(found)
