"""strawberry's executor with compiled operations: an operation that compiles
(`schema.execution.operation`) is answered by its compiled form, every read of it asked
before one wait, the answer completed in one pass; anything else, and anything the compiled
form leaves to it, is graphql-core's `execute_operation` as strawberry runs it, field by
field: the reference, whose answers the compiled form equals (tests/schema/
test_compiled_execution.py).

Only public members are used: the executor class is strawberry's `execution_context_class`,
`execute_operation` and `build` are graphql-core's documented entry points, and a
subscription's re-read (the document executed with the changed `User` as the root value,
`schema/live/reread.py`) has that user's reads planned here, before either path runs, as
`Query.user`'s resolver plans them.

The compiled form does not run under `@defer`, an abort signal, execution hooks, or field
middleware that does not declare that it leaves plain fields alone (`PassesPlainFields`):
the compiled form calls no resolver of a plain field, and a planned field's resolver only
through its bound read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar, TypeVar
from weakref import WeakMethod

from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    GraphQLError,
    GraphQLOutputType,
    GraphQLResolveInfoHelpers,
    GraphQLSchema,
    OperationType,
    get_named_type,
)
from graphql.execution import Executor, MiddlewareManager
from graphql.pyutils import AwaitableOrValue, is_awaitable
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from schema.access_plan import plan_partitions, reads_of, user_fields
from schema.execution.compiler import compiled_or_why, switches_of
from schema.execution.operation import CompiledOperation
from schema.execution.plan import STRAWBERRY_DEFINITION
from schema.plan_prices import PRICES
from schema.prepared import CompletionCounts, PreparedOperation, owner_of
from schema.user import User

__all__ = ["CompiledExecutionContext", "PassesPlainFields", "ReferenceExecutionContext"]

T = TypeVar("T")


class PassesPlainFields:
    """Marks a schema extension whose `resolve` hands a field resolved by strawberry's
    default resolver straight to the next resolver, untouched: with it installed, operations
    are still answered by their compiled form (which then never calls it)."""

    passes_plain_fields: ClassVar[bool] = True


def passes_plain_fields(manager: MiddlewareManager | None) -> bool:
    """True when no field middleware would see a plain field."""
    if manager is None:
        return True
    return all(getattr(m, "passes_plain_fields", False) for m in manager.middlewares or ())


class ReferenceExecutionContext(StrawberryGraphQLCoreExecutionContext):
    """graphql-core's path under strawberry, a re-read's root user planned first."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """graphql-core's executor, its resolvers' `async_helpers` holding it weakly.

        graphql-core gives them the executor's own bound methods: a cycle, which kept every
        operation's executor, with its Context and loaders, until the collector's next pass
        (41 objects a request, and as many for a socket's subscription: docs/performance.md).
        Without it, reference counting frees them as the operation ends. The helpers are
        asked only while the operation runs, so its executor is there."""
        super().__init__(*args, **kwargs)
        self.async_helpers = GraphQLResolveInfoHelpers(
            gather=_weakly(self.gather_async_work), track=_weakly(self.track_async_work)
        )

    @classmethod
    def build(
        cls, schema: GraphQLSchema, document: DocumentNode, *args: Any, **kwargs: Any
    ) -> list[GraphQLError] | Executor[Any]:
        """graphql-core's build; then the operation prepared, when no limit prepared it (a
        schema without them): the compiled form and the access plan's read plans are kept
        by its operation node."""
        built = super().build(schema, document, *args, **kwargs)
        owner = owner_of(schema)
        if (
            isinstance(built, Executor)
            and owner is not None
            and owner.of_operation(built.operation) is None
        ):
            name = built.operation.name
            owner.prepare(schema, None, document, None if name is None else name.value)
        return built

    def execute_operation(
        self, serially: bool | None = None
    ) -> AwaitableOrValue[ExecutionResult | Any]:
        self.plan_reread_root()
        return super().execute_operation(serially)

    def plan_reread_root(self) -> None:
        """A re-read's root user, its reads planned from the root field's selection, as the
        field's own class (the federation subgraph's entity is a subclass of `User`). A plan
        that fails (a User field that declares no reads) is the root field's error at its
        place, as a resolver's would be: strawberry's resolver gives the root value as the
        field's value, and graphql-core raises a value that is an exception."""
        user = self.root_value
        if self.operation.operation != OperationType.SUBSCRIPTION or not isinstance(user, User):
            return
        nodes = [s for s in self.operation.selection_set.selections if isinstance(s, FieldNode)]
        root_type = self.schema.subscription_type
        field_def = root_type.fields.get(nodes[0].name.value) if root_type and nodes else None
        if field_def is None:
            return
        fragments = self.fragment_definitions
        owner = owner_of(self.schema)
        user_type = self.schema.get_type("User")
        definition = user_type.extensions.get(STRAWBERRY_DEFINITION) if user_type else None
        try:
            plan_partitions(
                tuple(f for node in nodes for f in user_fields(node.selection_set, fragments)),
                self.variable_values.coerced,
                self.context_value.reads,
                [user.id],
                reads=reads_of(getattr(definition, "origin", User)),
                prices=PRICES if owner is None else owner.prices,
            )
        except Exception as error:  # the root field's error, at its place
            self.root_value = error
        else:
            self.root_value = as_field_class(user, field_def.type)


class CompiledExecutionContext(ReferenceExecutionContext):
    """The reference path, with each operation that compiles answered by its compiled form."""

    def execute_operation(
        self, serially: bool | None = None
    ) -> AwaitableOrValue[ExecutionResult | Any]:
        owner = owner_of(self.schema)
        if owner is None:  # a schema not built by build_schema: nothing is prepared
            return super().execute_operation(serially)
        counts = owner.completion
        compiled = self.compiled(owner.of_operation(self.operation))
        if compiled is None:
            counts.declined += 1
            return super().execute_operation(serially)
        data = compiled.run(self.context_value, self.variable_values, self.root_value, owner.prices)
        if asyncio.iscoroutine(data):
            return self._after(data, counts, serially)
        if data is None:
            counts.fell_back += 1
            return super().execute_operation(serially)
        counts.compiled += 1
        return ExecutionResult(data, None)

    async def _after(
        self,
        pending: Coroutine[Any, Any, dict[str, Any] | None],
        counts: CompletionCounts,
        serially: bool | None,
    ) -> ExecutionResult | Any:
        data = await pending
        if data is not None:
            counts.compiled += 1
            return ExecutionResult(data, None)
        counts.fell_back += 1
        result = super().execute_operation(serially)
        return await result if is_awaitable(result) else result

    def compiled(self, prepared: PreparedOperation | None) -> CompiledOperation | None:
        """The operation's compiled form for this request's `@include`/`@skip` values, or
        None where the reference path answers."""
        if (
            prepared is None
            or self.abort_signal is not None
            or self.hooks is not None
            or not passes_plain_fields(self.middleware_manager)
            or (self.operation.operation == OperationType.SUBSCRIPTION)
            != isinstance(self.root_value, User)
        ):
            return None
        operation, variables = self.operation, self.variable_values
        switches = prepared.switches(lambda: switches_of(operation, self.fragment_definitions))
        found = prepared.compiled(
            (id(operation), *(variables.coerced.get(name) for name in switches)),
            lambda: compiled_or_why(self.schema, operation, self.fragment_definitions, variables),
        )
        return found if isinstance(found, CompiledOperation) else None


def _weakly(method: Callable[..., T]) -> Callable[..., T]:
    """`method`, called through a weak reference to its object."""
    held = WeakMethod(method)

    def call(*args: Any, **kwargs: Any) -> T:
        bound = held()
        if bound is None:
            raise RuntimeError("this operation's execution has ended")
        return bound(*args, **kwargs)

    return call


def as_field_class(user: User, field_type: GraphQLOutputType) -> User:
    """`user` as the class of the field's named type, when that is a kind of User."""
    named = get_named_type(field_type)
    definition = named.extensions.get(STRAWBERRY_DEFINITION) if named.extensions else None
    user_class = getattr(definition, "origin", User)
    if isinstance(user, user_class) or not (
        isinstance(user_class, type) and issubclass(user_class, User)
    ):
        return user
    return user_class(id=user.id)
