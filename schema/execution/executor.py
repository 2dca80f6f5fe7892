"""Compiled completion: strawberry's graphql-core executor, completing a plain object in one
loop, and a planned object (a `User`) after one wait for all its reads.

graphql-core completes every field on its own: a path, a resolve info, the default
resolver, `T!` completed twice, the coercion; about 3 µs a plain leaf, and a full User has
~740 fields. When every field selected on an object is plain (`schema.execution.plan`),
this executor reads and coerces them in one loop instead, nested plain objects and lists
included: the same values in the same order, a fraction of the cost.

Any surprise falls back to graphql-core's own path for that object, which then answers
exactly as it always does, errors included (message, path, locations): a null in a
non-null field, a value that does not coerce, a missing attribute, an awaitable or an
exception as a value, a list that is not a list or tuple. The compiled path does not run
at all under `@defer`, an abort signal, or field middleware that does not declare that it
leaves plain fields alone (`PassesPlainFields`). Plain fields only read attributes, so
reading one again on the fallback changes nothing.

Planned fields (`schema.execution.plan`: a resolver that declares its reads) are read in two
steps. Every object of a list (every user of `users(ids:)`, of `_entities`) is asked for
every planned field's answer before anything is awaited, which puts every key of the
request into its loaders at once; then the object waits once, on all their loads together,
and completes synchronously (`loaders.answers.Later`: no coroutine or task per field). The
root fields of an operation are resolved and completed in one synchronous pass, so the whole
operation's reads go to DynamoDB together: one wait by construction (a subscription's
re-read too: its root user is planned before its root field, `reread_root`). A failed load
fails the objects that read it back to graphql-core's path, whose resolvers answer from the
same settled loads (no second call) with the error at its place; the other objects of a list
keep what the plan completed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar

# FieldDetailsList and DeliveryGroupMap are graphql-core's internals, not its public API: what
# its execution context passes to `complete_object_value` and `complete_list_value`, which this
# module overrides. Internals change between minor series without notice, so pyproject.toml
# bounds graphql-core to the 3.3 series this is written for (tests/test_dependency_lock.py holds
# the bound to the lock).
from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLSchema,
)
from graphql.execution.collect_fields import FieldDetailsList
from graphql.execution.executor import Executor
from graphql.execution.incremental.incremental_executor import DeliveryGroupMap
from graphql.execution.middleware import MiddlewareManager
from graphql.execution.values import get_argument_values
from graphql.pyutils import AwaitableOrValue, Path, is_awaitable
from strawberry.types.field import StrawberryField
from strawberry.types.info import Info

from schema.execution.completion import (
    Compiled,
    PlannedRead,
    complete_objects,
    complete_plain,
)
from schema.execution.plan import (
    COLLECTION_DIRECTIVES,
    STRAWBERRY_DEFINITION,
    TYPENAME,
    Level,
    PlainField,
    compile_level,
    level_key,
)
from schema.execution.planned import ask, loads_of, outcome, planned_reads, settle
from schema.execution.reread_root import RereadExecutionContext
from schema.prepared import CompletionCounts, owner_of

__all__ = ["CompiledExecutionContext", "PassesPlainFields", "passes_plain_fields"]


class PassesPlainFields:
    """Marks a schema extension whose `resolve` hands a field resolved by strawberry's
    default resolver straight to the next resolver, untouched: with it installed, plain
    objects are still completed by the compiled path (which then never calls it), and so
    are planned objects, whose fields are read by the plan, not resolved one by one (so the
    extension sees none of them either)."""

    passes_plain_fields: ClassVar[bool] = True


def _streams(node: Any) -> bool:
    """A directive on the list's field other than `@include`/`@skip` (`@stream`)."""
    return any(d.name.value not in COLLECTION_DIRECTIVES for d in node.directives or ())


def passes_plain_fields(manager: MiddlewareManager | None) -> bool:
    """True when no field middleware would see a plain field."""
    if manager is None:
        return True
    return all(getattr(m, "passes_plain_fields", False) for m in manager.middlewares or ())


class CompiledExecutionContext(RereadExecutionContext):
    """strawberry's executor (`execution_context_class`), plain objects compiled (a
    re-read's root planned as on graphql-core's path: `schema.execution.reread_root`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._compiles = self.abort_signal is None and passes_plain_fields(self.middleware_manager)
        # The schema's prepared operations: this operation's remembered completion levels,
        # and the counts of compiled objects.
        self._owner = owner_of(self.schema)
        self._prepared = None if self._owner is None else self._owner.of_operation(self.operation)
        self._counts = CompletionCounts() if self._owner is None else self._owner.completion
        # Per request, like graphql-core's own subfield memo: by the identity of the field
        # details list (kept alive beside its plan so that the id is not reused).
        self._compiled: dict[
            tuple[GraphQLObjectType, int], tuple[FieldDetailsList, Compiled | None]
        ] = {}
        # The planned objects of a list that fell back, by identity (each kept alive beside
        # its entry): completed (taken as is), or None (graphql-core's path answers it).
        self._finished: dict[int, tuple[Any, dict[str, Any] | None]] = {}

    @classmethod
    def build(
        cls, schema: GraphQLSchema, document: DocumentNode, *args: Any, **kwargs: Any
    ) -> list[GraphQLError] | Executor[Any]:
        """graphql-core's build; then the operation's prepared operation, prepared here when
        no limit prepared it (a schema without them): its completion levels, and the access
        plan's read plans, are found by its operation node."""
        built = super().build(schema, document, *args, **kwargs)
        if isinstance(built, CompiledExecutionContext) and built._prepared is None:
            owner = built._owner
            if owner is not None:
                name = built.operation.name
                operation_name = None if name is None else name.value
                built._prepared = owner.prepare(schema, None, document, operation_name)
        return built

    def complete_object_value(
        self,
        return_type: GraphQLObjectType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: DeliveryGroupMap | None,
    ) -> AwaitableOrValue[dict[str, Any]]:
        if self._compiles and position_context is None and return_type.is_type_of is None:
            fields = self.compiled_fields(return_type, field_details_list)
            finished = self._finished.pop(id(result), None)
            if finished is not None and finished[1] is not None:
                return finished[1]
            if fields is not None and finished is None:
                reads = planned_reads(fields)
                if reads:
                    return self._complete_planned(
                        fields,
                        reads,
                        [result],
                        lambda: super(CompiledExecutionContext, self).complete_object_value(
                            return_type, field_details_list, info, path, result, position_context
                        ),
                        single=True,
                    )
                try:
                    completed = complete_plain(fields, result)
                except Exception:  # graphql-core's path gives the answer or the error
                    self._counts.fell_back += 1
                else:
                    self._counts.compiled += 1
                    return completed
        return super().complete_object_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def complete_list_value(
        self,
        return_type: GraphQLList[GraphQLOutputType],
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: DeliveryGroupMap | None,
    ) -> AwaitableOrValue[list[Any]]:
        # A resolver's list of plain objects (a User's expenses, scores, runs) in one loop,
        # without graphql-core's path, completion and checks per item; the same answer as
        # completing each item on its own, which is what a surprise falls back to.
        items = return_type.of_type
        items_non_null = isinstance(items, GraphQLNonNull)
        item_type = items.of_type if isinstance(items, GraphQLNonNull) else items
        if (
            self._compiles
            and position_context is None
            and (type(result) is list or type(result) is tuple)
            and isinstance(item_type, GraphQLObjectType)
            and item_type.is_type_of is None
            and not any(_streams(details.node) for details in field_details_list)
        ):
            fields = self.compiled_fields(item_type, field_details_list)
            if fields is not None:
                reads = planned_reads(fields)
                if reads:
                    # Users, all planned together; a list with a refusal (or a null) in it
                    # is completed item by item by graphql-core, each User still planned by
                    # `complete_object_value` in the same pass.
                    if any(item is None or isinstance(item, Exception) for item in result):
                        return super().complete_list_value(
                            return_type, field_details_list, info, path, result, position_context
                        )
                    return self._complete_planned(
                        fields,
                        reads,
                        list(result),
                        lambda: super(CompiledExecutionContext, self).complete_list_value(
                            return_type, field_details_list, info, path, result, position_context
                        ),
                        single=False,
                    )
                try:
                    completed = complete_objects(fields, items_non_null, result)
                except Exception:  # graphql-core's path gives the answer or the error
                    self._counts.fell_back += 1
                else:
                    self._counts.compiled += len(completed)
                    return completed
        return super().complete_list_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def _complete_planned(
        self,
        fields: Compiled,
        reads: Sequence[PlannedRead],
        sources: list[Any],
        fall_back: Callable[[], AwaitableOrValue[Any]],
        *,
        single: bool,
    ) -> AwaitableOrValue[Any]:
        """Planned objects: every read of every source asked for now, then one wait on all
        their loads (none when all are known), then completed synchronously."""
        answers = [ask(reads, source) for source in sources]
        loads = loads_of(answers)
        if not loads:
            return self._finish_planned(fields, sources, answers, {}, fall_back, single)
        return self._after_loads(fields, sources, answers, loads, fall_back, single)

    async def _after_loads(
        self,
        fields: Compiled,
        sources: list[Any],
        answers: list[list[Any]],
        loads: list[Any],
        fall_back: Callable[[], AwaitableOrValue[Any]],
        single: bool,
    ) -> Any:
        # Waited on, not gathered: a cancelled request must not cancel loads that other
        # requests share (a subscription's re-reads share one read: schema/live).
        waits = [asyncio.ensure_future(load) for load in loads]
        await asyncio.wait(waits)
        awaited = {id(load): outcome(wait) for load, wait in zip(loads, waits, strict=True)}
        finished = self._finish_planned(fields, sources, answers, awaited, fall_back, single)
        return await finished if is_awaitable(finished) else finished

    def _finish_planned(
        self,
        fields: Compiled,
        sources: list[Any],
        answers: list[list[Any]],
        awaited: dict[int, Any],
        fall_back: Callable[[], AwaitableOrValue[Any]],
        single: bool,
    ) -> AwaitableOrValue[Any]:
        completed: list[dict[str, Any] | None] = []
        for source, object_answers in zip(sources, answers, strict=True):
            try:
                completed.append(complete_plain(fields, source, settle(object_answers, awaited)))
            except Exception:  # graphql-core's path gives the answer or the error
                completed.append(None)
        failed = completed.count(None)
        self._counts.planned += len(completed) - failed
        if not failed:
            return completed[0] if single else completed
        self._counts.fell_back += failed
        if not single:
            # graphql-core's path completes the list item by item: each object completed
            # here is taken as it is, and only the others are resolved field by field.
            for source, done in zip(sources, completed, strict=True):
                self._finished[id(source)] = (source, done)
        return fall_back()

    def compiled_fields(
        self, object_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> Compiled | None:
        """The object's compiled fields for this request, or None when not plain."""
        key = (object_type, id(field_details_list))
        known = self._compiled.get(key)
        if known is not None:
            return known[1]
        fields = self._compile(object_type, field_details_list)
        self._compiled[key] = (field_details_list, fields)
        return fields

    def _compile(
        self, object_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> Compiled | None:
        grouped, new_defer_usages, forbidden = self.collect_subfields(
            object_type, field_details_list
        )
        if new_defer_usages or forbidden or not field_details_list:
            return None
        groups = [
            (name, [details.node for details in details_list])
            for name, details_list in grouped.items()
        ]

        def compile_this() -> Level | None:
            return compile_level(self.schema, object_type, groups)

        prepared = self._prepared
        level = (
            compile_this()
            if prepared is None
            else prepared.level(level_key(object_type, groups), compile_this)
        )
        if level is None:
            return None
        compiled = []
        for field in level:
            nested = None
            if field.object_type is not None:
                nested = self.compiled_fields(field.object_type, grouped[field.response_name])
                if nested is None:
                    return None
            read = field.read
            if field.planned is not None:
                read = self._bind(object_type, field, field.planned, grouped[field.response_name])
                if read is None:
                    return None
            compiled.append(
                (
                    field.response_name,
                    field.kind,
                    read,
                    field.name if field.kind == TYPENAME else field.coerce,
                    field.non_null,
                    field.items_non_null,
                    nested,
                    field.planned is not None,
                )
            )
        return tuple(compiled)

    def _bind(
        self,
        object_type: GraphQLObjectType,
        field: PlainField,
        definition: StrawberryField,
        details: FieldDetailsList,
    ) -> PlannedRead | None:
        """A planned field's resolver with this request's arguments bound (as strawberry
        would pass them), or None when they do not coerce (graphql-core reports it)."""
        node = details[0].node
        field_def = self.schema.get_field(object_type, node.name.value)
        resolver = definition.base_resolver
        if field_def is None or resolver is None:
            return None
        try:
            values = get_argument_values(
                field_def, node, self.variable_values, details[0].fragment_variable_values
            )
        except GraphQLError:
            return None
        kwargs: dict[str, Any] = {
            field_def.args[name].extensions[STRAWBERRY_DEFINITION].python_name: value
            for name, value in values.items()
        }
        info_parameter = resolver.info_parameter
        if info_parameter is not None:
            # Resolvers of planned fields read the request's context, never their path.
            raw = self.build_resolve_info(
                field_def,
                [d.node for d in details],
                object_type,
                Path(None, field.response_name, object_type.name),
            )
            kwargs[info_parameter.name] = Info(_raw_info=raw, _field=definition)
        function = resolver.wrapped_func
        if isinstance(function, (staticmethod, classmethod)):
            return None
        if resolver.self_parameter is not None:
            return partial(function, **kwargs)
        return lambda _source: function(**kwargs)
