"""The prepared operation: what the gateway knows of one (document, operation name), found
once and reused by every request of that text.

A request's document is measured by the query limits, charged by its cost, counted by
field usage, planned by the access plan, answered by its compiled form and, for a
subscription, charged again per re-read. Each of those used to walk the document with its
own memo; a `PreparedOperation` holds them all, made when the first of them asks:

- on preparation, the figures every request reads: depth and aliases of the executed
  operation, and the whole document's selections and fragment depth
  (schema/extensions/measures.py, document_shape.py); none of these depends on the variables;
- when first asked, each remembered from then on: the overlap count (only once the shape
  limits before it passed: that walk is bounded by them), the cost for each shape of the
  variables (a list's length, an integer's value; coerced as execution coerces them), the
  field-usage coordinates (once validation passed), each root field's User fields (the access
  plan's read plan, kept by the identity of the merged nodes, which the prepared operation
  keeps alive by holding its document) and the compiled operation for each set of the
  values `@include`/`@skip` read (schema/execution/operation.py).

The owner, `PreparedOperations`, is made once per process (gateway/app.py) and attached to
the schema it serves (`attach`, `owner_of`): a bounded LRU keyed by the query text and the
operation name, where concurrent first requests of one text prepare it once (single-flight,
across threads too). An entry answers only for the very document (and schema) it was
prepared from: a text the parser cache parsed again is prepared again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Generic, TypeVar

from graphql import DocumentNode, GraphQLSchema, OperationDefinitionNode

from schema.extensions.coordinates import Coordinates, coordinates_of
from schema.extensions.document_shape import fragment_depth, overlap_count, selection_count
from schema.extensions.measures import (
    CostPolicy,
    alias_count,
    executed_operations,
    query_cost,
    query_depth,
)
from schema.plan_prices import PRICES, Prices
from schema.scalars import WireForms

__all__ = [
    "COMPILED_PER_OPERATION",
    "CompletionCounts",
    "PreparedOperation",
    "PreparedOperations",
    "attach",
    "owner_of",
]

V = TypeVar("V")

#: Prepared operations kept: as many texts as the parser cache keeps (512), with room for a
#: few operation names per text.
PREPARED_OPERATIONS = 1024
#: Per prepared operation, the remembered costs (one per shape of the variables): past this
#: many, the oldest goes.
REMEMBERED_PER_OPERATION = 256
#: Per prepared operation, the compiled forms kept (one per set of `@include`/`@skip`
#: values): a full User's is ~87 KiB of code, so a document with many switches cannot fill
#: the process with them (the others are compiled again when asked).
COMPILED_PER_OPERATION = 4
#: The key under which the owner hangs on graphql-core's schema (`GraphQLSchema.extensions`).
SCHEMA_EXTENSION_KEY = "insight.prepared_operations"


class CompletionCounts:
    """How many operations their compiled form answered, how many it left to graphql-core
    after it ran (a refusal, a failed read, a value that does not complete) and how many did
    not compile (`gateway_operations_executed_total` counts them by path)."""

    __slots__ = ("compiled", "declined", "fell_back")

    def __init__(self) -> None:
        self.compiled = 0
        self.fell_back = 0
        self.declined = 0


class _Remembered(Generic[V]):
    """A small LRU of values computed from one prepared operation."""

    __slots__ = ("_values", "maxsize")

    def __init__(self, maxsize: int = REMEMBERED_PER_OPERATION) -> None:
        self._values: OrderedDict[Hashable, V] = OrderedDict()
        self.maxsize = maxsize

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        try:
            value = self._values[key]
        except KeyError:
            value = self._values[key] = compute()
            if len(self._values) > self.maxsize:
                self._values.popitem(last=False)
            return value
        self._values.move_to_end(key)
        return value

    def __len__(self) -> int:
        return len(self._values)


class PreparedOperation:
    """Everything the gateway derives from one operation of one parsed document."""

    def __init__(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        operation_name: str | None,
        policy: CostPolicy,
    ) -> None:
        self.schema = schema
        self.document = document
        self.operation_name = operation_name
        self.policy = policy
        self.operations = tuple(executed_operations(document, operation_name))
        self.depth = query_depth(document, operation_name)
        self.aliases = alias_count(document, operation_name)
        self.selections = selection_count(document)
        self.fragment_depth = fragment_depth(document)
        self._overlaps: dict[int | None, int] = {}
        self._costs: _Remembered[int] = _Remembered()
        self._coordinates: Coordinates | None = None
        self._compiled: _Remembered[Any] = _Remembered(COMPILED_PER_OPERATION)
        self._switches: tuple[str, ...] | None = None

    def overlaps(self, stop_above: int | None) -> int:
        """The overlapping field pairs, counted up to just past `stop_above`."""
        count = self._overlaps.get(stop_above)
        if count is None:
            count = self._overlaps[stop_above] = overlap_count(self.document, stop_above)
        return count

    def cost(self, variables: object) -> int:
        """The cost under the owner's policy for these variables (as sent, or coerced: the
        cost reads each through its size, and coerces them as execution does)."""
        given: Mapping[str, Any] = variables if isinstance(variables, Mapping) else {}
        return self._costs.get(
            self.policy.variable_sizes(variables),
            lambda: query_cost(self.schema, self.document, self.policy, self.operation_name, given),
        )

    def coordinates(self) -> Coordinates:
        """The schema coordinates the operation reads (field usage)."""
        if self._coordinates is None:
            names = coordinates_of(self.schema, self.document, self.operation_name)
            self._coordinates = Coordinates(names)
        return self._coordinates

    def switches(self, compute: Callable[[], tuple[str, ...]]) -> tuple[str, ...]:
        """The variables `@include`/`@skip` read (schema/execution/operation.py)."""
        if self._switches is None:
            self._switches = compute()
        return self._switches

    def compiled(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The compiled operation (schema/execution/operation.py) for one set of those
        variables' values (or why it declines)."""
        result: V = self._compiled.get(key, compute)
        return result


class PreparedOperations:
    """The process's prepared operations: a bounded LRU by (query text, operation name).

    `preparations` counts the operations prepared, `reuses` the requests answered by one
    prepared before, `evictions` those dropped past `maxsize`. It also holds the schema's
    other process caches: `completion` counts the operations by the path that answered, `forms`
    remembers the Decimal and DateTime wire forms (schema/scalars.py); and `prices`, what
    the access plan prices its candidate plans by (schema/plan_prices.py)."""

    def __init__(
        self,
        policy: CostPolicy | None = None,
        maxsize: int = PREPARED_OPERATIONS,
        *,
        prices: Prices = PRICES,
    ):
        if maxsize < 1:
            raise ValueError("PreparedOperations keeps at least one operation")
        self.policy = policy or CostPolicy()
        self.maxsize = maxsize
        self.prices = prices
        self.preparations = 0
        self.reuses = 0
        self.evictions = 0
        self.completion = CompletionCounts()
        self.forms = WireForms()
        self._entries: OrderedDict[Hashable, PreparedOperation] = OrderedDict()
        self._by_operation: dict[int, PreparedOperation] = {}
        self._pending: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def prepare(
        self,
        schema: GraphQLSchema,
        query: str | None,
        document: DocumentNode,
        operation_name: str | None,
    ) -> PreparedOperation:
        """The prepared operation of `document` (parsed from `query`), made on first use.

        A document given without its text is known by its identity instead (the entry
        holds it, so its id is not reused while the entry lives)."""
        key = (query if query is not None else id(document), operation_name)
        while True:
            with self._lock:
                known = self._entries.get(key)
                if known is not None and known.document is document and known.schema is schema:
                    self._entries.move_to_end(key)
                    self.reuses += 1
                    return known
                pending = self._pending.get(key)
                if pending is None:
                    pending = self._pending[key] = threading.Event()
                    break
            # Another thread prepares this text: wait for it, then look again.
            pending.wait()
        try:
            prepared = PreparedOperation(schema, document, operation_name, self.policy)
            with self._lock:
                self.preparations += 1
                self._store(key, prepared)
        finally:
            with self._lock:
                del self._pending[key]
            pending.set()
        return prepared

    def _store(self, key: Hashable, prepared: PreparedOperation) -> None:
        replaced = self._entries.pop(key, None)
        if replaced is not None:
            self._forget(replaced)
        self._entries[key] = prepared
        for operation in prepared.operations:
            self._by_operation[id(operation)] = prepared
        while len(self._entries) > self.maxsize:
            _, evicted = self._entries.popitem(last=False)
            self._forget(evicted)
            self.evictions += 1

    def _forget(self, prepared: PreparedOperation) -> None:
        for operation in prepared.operations:
            if self._by_operation.get(id(operation)) is prepared:
                del self._by_operation[id(operation)]

    def of_operation(self, operation: OperationDefinitionNode) -> PreparedOperation | None:
        """The prepared operation executing `operation` (a node of its document), if any."""
        return self._by_operation.get(id(operation))


def attach(schema: GraphQLSchema, prepared: PreparedOperations) -> None:
    """Make `prepared` the owner of `schema`'s prepared operations."""
    schema.extensions = {**(schema.extensions or {}), SCHEMA_EXTENSION_KEY: prepared}


def owner_of(schema: GraphQLSchema) -> PreparedOperations | None:
    """The prepared operations attached to `schema` (None: none were)."""
    owner = (schema.extensions or {}).get(SCHEMA_EXTENSION_KEY)
    return owner if isinstance(owner, PreparedOperations) else None
