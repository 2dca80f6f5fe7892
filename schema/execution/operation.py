"""The compiled operation: what one prepared document's operation does, found once and kept
with its prepared operation (`schema.prepared`), for each set of `@include`/`@skip` values.

An operation compiles when each of its root fields is `user(id:)`, `users(ids:)`, `viewer`,
the federation subgraph's `_entities` or `__typename` (a query), or is a subscription's one
root field re-read for a changed user, and every field selected under them is plain or
planned (`schema.execution.plan`): no directive but `@include`/`@skip`, no fragment on
another type, no introspection. Then it is:

- per root field, the users it answers (its arguments coerced, the ids checked, the read
  rule applied) and the access plan of its User selection (`schema.access_plan`);
- for the User selection, its completion: a generated function (`schema.execution.generated`)
  of the plain fields' reads and coercions, nested objects and lists included, and of the
  planned fields' values, whose resolvers are called with their arguments bound, for every
  user of every root field, before anything is awaited.

`run` asks every read of the operation, waits once on all their loads (not at all when a
warm cache knows them: the answer is then synchronous), and completes the whole answer.
Anything it does not expect (a refused id, a read that failed, an argument out of range, a
value that does not complete) is left to graphql-core, which executes the operation over
the same request: its resolvers find the same plan and the same settled loads, so no
DynamoDB call is made twice, and the answer, errors included, is graphql-core's own.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeAlias

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLField,
    GraphQLIncludeDirective,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLSkipDirective,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    get_argument_values,
    get_directive_values,
)
from graphql.execution import VariableValues
from strawberry.types.field import StrawberryField

from loaders.errors import BadUserInput
from schema.access_plan import UserField, plan_partitions, reads_of, user_fields
from schema.arguments import check_id_count, check_user_id
from schema.context import Context
from schema.execution.generated import Completion, Selection, Unplain, generate
from schema.execution.plan import COLLECTION_DIRECTIVES, STRAWBERRY_DEFINITION, compile_level
from schema.execution.planned import PlannedRead, ask, loads_of, outcome, settle
from schema.field_reads import FieldRead
from schema.plan_prices import Prices
from schema.user import User

__all__ = [
    "CompiledOperation",
    "PlannedInfo",
    "compile_object",
    "compile_operation",
    "compiled_or_why",
    "switches_of",
]

#: What a root field answers: one user (`user`, `viewer`, a re-read's root), a list of users
#: (`users`, the federation subgraph's `_entities`), or the root type's name (`__typename`).
ONE, MANY, NAME = range(3)
#: The query root fields a compiled operation answers, and what each answers.
QUERY_ROOTS = {"user": ONE, "users": MANY, "viewer": ONE, "_entities": MANY}

#: Merged field nodes by response name, in the order the response has them.
Grouped: TypeAlias = dict[str, list[FieldNode]]


class PlannedInfo:
    """What a planned field's resolver gets as its `info`: the request's context, the one
    thing planned resolvers read (`schema.execution.plan`); anything else it asked for would
    raise, and graphql-core's path would answer that field instead."""

    __slots__ = ("context",)

    def __init__(self, context: Context) -> None:
        self.context = context


@dataclass(frozen=True, slots=True)
class PlannedField:
    """A planned User field: its resolver, and the node and definition its arguments come
    from (bound per request: they may name variables)."""

    function: Callable[..., Any]
    field_def: GraphQLField
    node: FieldNode
    #: Each argument's Python name by its GraphQL name, and the `info` parameter's, if any.
    names: Mapping[str, str]
    info_name: str | None

    def bind(self, context: Context, variables: VariableValues) -> PlannedRead:
        names = self.names
        values = get_argument_values(self.field_def, self.node, variables)
        kwargs: dict[str, Any] = {names[name]: value for name, value in values.items()}
        if self.info_name is not None:
            kwargs[self.info_name] = PlannedInfo(context)
        return partial(self.function, **kwargs)


def planned_field(
    definition: StrawberryField, field_def: GraphQLField, node: FieldNode
) -> PlannedField:
    resolver = definition.base_resolver
    function = None if resolver is None else resolver.wrapped_func
    if resolver is None or isinstance(function, (staticmethod, classmethod)) or function is None:
        raise Declined(f"{node.name.value}: not a plain function resolver")
    names = {
        name: argument.extensions[STRAWBERRY_DEFINITION].python_name
        for name, argument in field_def.args.items()
    }
    info = resolver.info_parameter
    return PlannedField(function, field_def, node, names, None if info is None else info.name)


@dataclass(frozen=True, slots=True)
class RootField:
    response_name: str
    answers: int  # ONE, MANY or NAME
    node: FieldNode
    field_def: GraphQLField | None
    #: The User selection: its completion, its planned fields in order, its access plan.
    user: Completion | None = None
    planned: tuple[PlannedField, ...] = ()
    user_fields: tuple[UserField, ...] = ()
    type_name: str = ""
    #: The schema's User class (the subgraph's entity is a subclass of `User`), and what
    #: each of its fields reads (the access plan's prices of them).
    user_class: type[User] = User
    reads: Mapping[str, FieldRead] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CompiledOperation:
    roots: tuple[RootField, ...]
    #: A subscription re-read: its one root field answers the event's user.
    reread: bool

    def run(
        self, context: Context, variables: VariableValues, root_value: Any, prices: Prices
    ) -> dict[str, Any] | Coroutine[Any, Any, dict[str, Any] | None] | None:
        """The operation's `data`, or None where graphql-core must answer; a coroutine
        giving either when some read is not known yet."""
        coerced = variables.coerced
        users: list[list[User] | None] = []
        reads: list[tuple[PlannedRead, ...]] = []
        for root in self.roots:
            if root.answers == NAME:
                users.append(None)
                reads.append(())
                continue
            found = [root_value] if self.reread else root_users(root, context, variables)
            if found is None:
                return None
            plan_partitions(
                root.user_fields,
                coerced,
                context.reads,
                (user.id for user in found),
                reads=root.reads,
                prices=prices,
            )
            users.append(found)
            try:
                reads.append(tuple(field.bind(context, variables) for field in root.planned))
            except GraphQLError:  # an argument that does not coerce: graphql-core says so
                return None
        answers = [
            [ask(root_reads, user) for user in root_users or ()]
            for root_users, root_reads in zip(users, reads, strict=True)
        ]
        loads = loads_of([answer for root_answers in answers for answer in root_answers])
        if not loads:
            return self._complete(users, answers, {})
        return self._after(users, answers, loads)

    async def _after(
        self, users: list[list[User] | None], answers: list[list[list[Any]]], loads: list[Any]
    ) -> dict[str, Any] | None:
        # Waited on, not gathered: a cancelled request must not cancel loads that other
        # requests share (a subscription's re-reads share one read: schema/live).
        waits = [asyncio.ensure_future(load) for load in loads]
        await asyncio.wait(waits)
        awaited = {id(load): outcome(wait) for load, wait in zip(loads, waits, strict=True)}
        return self._complete(users, answers, awaited)

    def _complete(
        self,
        users: list[list[User] | None],
        answers: list[list[list[Any]]],
        awaited: dict[int, Any],
    ) -> dict[str, Any] | None:
        data: dict[str, Any] = {}
        try:
            for root, root_users, root_answers in zip(self.roots, users, answers, strict=True):
                if root_users is None:
                    data[root.response_name] = root.type_name
                    continue
                complete = root.user.complete  # type: ignore[union-attr]
                completed = [
                    complete(user, _settled(user_answers, awaited))
                    for user, user_answers in zip(root_users, root_answers, strict=True)
                ]
                data[root.response_name] = completed if root.answers == MANY else completed[0]
        except Exception:  # graphql-core's path gives the answer or the error
            return None
        return data


def _settled(answers: list[Any], awaited: dict[int, Any]) -> list[Any]:
    settled = settle(answers, awaited)
    if any(isinstance(answer, BaseException) for answer in settled):
        raise Unplain
    return settled


def root_users(root: RootField, context: Context, variables: VariableValues) -> list[User] | None:
    """The users a query's root field answers, or None where graphql-core must answer (an
    argument that does not coerce, an id or a representation refused)."""
    principal = context.principal
    try:
        if root.field_def is None:  # viewer
            ids = [principal.sub]
        else:
            arguments = get_argument_values(root.field_def, root.node, variables)
            if "representations" in arguments:
                ids = [_represented(given) for given in arguments["representations"]]
            elif root.answers == MANY:
                ids = [check_user_id(str(i), "ids") for i in check_id_count(arguments["ids"])]
            else:
                ids = [check_user_id(str(arguments["id"]))]
    except (GraphQLError, BadUserInput):
        return None
    if not all(principal.may_read(user_id) for user_id in ids):
        return None
    return [root.user_class(id=user_id) for user_id in ids]  # type: ignore[arg-type]


def _represented(representation: object) -> str:
    """The id of a router's `{__typename: "User", id}`, checked as `users(ids:)` checks one."""
    if not isinstance(representation, dict) or representation.get("__typename") != "User":
        raise BadUserInput("representations", "not a User representation")
    user_id = representation.get("id")
    if not isinstance(user_id, str) or len(representation) != 2:
        raise BadUserInput("representations", "a User representation is its __typename and id")
    return check_user_id(user_id, "representations")


# --- compiling -----------------------------------------------------------------------------


class Declined(Exception):
    """Something the compiled operation leaves to graphql-core."""


def switches_of(
    operation: OperationDefinitionNode, fragments: Mapping[str, FragmentDefinitionNode]
) -> tuple[str, ...]:
    """The variables `@include`/`@skip` read: a compiled operation is kept per their values."""
    names: set[str] = set()
    stack: list[SelectionSetNode | None] = [
        operation.selection_set,
        *(fragment.selection_set for fragment in fragments.values()),
    ]
    while stack:
        selection_set = stack.pop()
        for selection in selection_set.selections if selection_set else ():
            for directive in selection.directives or ():
                for argument in directive.arguments or ():
                    value: Any = argument.value
                    if value.kind == "variable":
                        names.add(value.name.value)
            stack.append(getattr(selection, "selection_set", None))
    return tuple(sorted(names))


def compile_operation(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: VariableValues,
) -> CompiledOperation | None:
    """The operation compiled for these `@include`/`@skip` values, or None if it declines."""
    compiled = compiled_or_why(schema, operation, fragments, variables)
    return compiled if isinstance(compiled, CompiledOperation) else None


def compiled_or_why(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: VariableValues,
) -> CompiledOperation | str:
    """The compiled operation, or what makes it decline (`insight-gateway explain`)."""
    try:
        return _compile(schema, operation, fragments, variables)
    except Declined as declined:
        return str(declined)


def _compile(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: VariableValues,
) -> CompiledOperation:
    reread = operation.operation == OperationType.SUBSCRIPTION
    if operation.operation == OperationType.MUTATION:
        raise Declined("a mutation")
    root_type = schema.get_root_type(operation.operation)
    if root_type is None:
        raise Declined(f"no {operation.operation.value} type")
    grouped = _collect(root_type, [operation.selection_set], fragments, variables)
    if reread and len(grouped) != 1:
        raise Declined("a subscription without one root field")
    roots = []
    for response_name, nodes in grouped.items():
        name = nodes[0].name.value
        if name == "__typename" and not reread:
            roots.append(RootField(response_name, NAME, nodes[0], None, type_name=root_type.name))
            continue
        field_def = root_type.fields.get(name)
        answers = ONE if reread else QUERY_ROOTS.get(name)
        if field_def is None or answers is None:
            raise Declined(f"the root field {name}")
        user_type = schema.get_type("User")
        definition = user_type.extensions.get(STRAWBERRY_DEFINITION) if user_type else None
        user_class = getattr(definition, "origin", None)
        if not (
            isinstance(user_type, GraphQLObjectType)
            and isinstance(user_class, type)
            and issubclass(user_class, User)
        ):
            raise Declined("a schema whose User is not the gateway's")
        selection, planned = compile_object(schema, user_type, nodes, fragments, variables)
        roots.append(
            RootField(
                response_name,
                answers,
                nodes[0],
                None if name == "viewer" or reread else field_def,
                generate(selection),
                tuple(planned),
                tuple(f for node in nodes for f in user_fields(node.selection_set, fragments)),
                user_class=user_class,
                reads=reads_of(user_class),
            )
        )
    return CompiledOperation(tuple(roots), reread)


def compile_object(
    schema: GraphQLSchema,
    object_type: GraphQLObjectType,
    nodes: Sequence[FieldNode],
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: VariableValues,
) -> tuple[Selection, list[PlannedField]]:
    """One object's selection under `nodes` (merged), and its planned fields in order."""
    grouped = _collect(object_type, [node.selection_set for node in nodes], fragments, variables)
    level = compile_level(schema, object_type, list(grouped.items()))
    if level is None:
        names = [
            f"{object_type.name}.{nodes[0].name.value}"
            for name, nodes in grouped.items()
            if compile_level(schema, object_type, [(name, nodes)]) is None
        ]
        raise Declined(f"a field it does not compile: {', '.join(names)}")
    fields = []
    planned = []
    for field in level:
        nested: Selection | None = None
        if field.object_type is not None:
            nested, inner = compile_object(
                schema, field.object_type, grouped[field.response_name], fragments, variables
            )
            if inner:  # planned reads below the top level are not planned together
                raise Declined(f"planned reads under {field.object_type.name}")
        if field.planned is not None:
            node = grouped[field.response_name][0]
            field_def = schema.get_field(object_type, node.name.value)
            if field_def is None:
                raise Declined(f"{object_type.name}.{node.name.value}: not in the schema")
            planned.append(planned_field(field.planned, field_def, node))
        fields.append((field, nested))
    return Selection(object_type.name, tuple(fields)), planned


def _collect(
    object_type: GraphQLObjectType,
    selection_sets: Sequence[SelectionSetNode | None],
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: VariableValues,
) -> Grouped:
    """The fields selected on `object_type`, merged by response name, `@include`/`@skip`
    applied, as graphql-core's field collection gives them."""
    grouped: Grouped = {}
    visited: set[str] = set()

    def visit(selection_set: SelectionSetNode | None) -> None:
        for selection in selection_set.selections if selection_set else ():
            if not _included(selection, variables):
                continue
            if isinstance(selection, FieldNode):
                name = selection.alias.value if selection.alias else selection.name.value
                grouped.setdefault(name, []).append(selection)
            elif isinstance(selection, InlineFragmentNode):
                _same_type(selection.type_condition, object_type)
                visit(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = fragments.get(name)
                if fragment is None or selection.arguments:
                    raise Declined(f"the fragment {name}: unknown, or given arguments")
                if name in visited:
                    continue
                visited.add(name)
                _same_type(fragment.type_condition, object_type)
                if fragment.directives:
                    raise Declined(f"the fragment {name}: directives on its definition")
                visit(fragment.selection_set)

    for selection_set in selection_sets:
        visit(selection_set)
    return grouped


def _same_type(condition: Any, object_type: GraphQLObjectType) -> None:
    if condition is not None and condition.name.value != object_type.name:
        raise Declined(f"a fragment on {condition.name.value} under {object_type.name}")


def _included(selection: Any, variables: VariableValues) -> bool:
    directives = selection.directives or ()
    if not directives:
        return True
    unknown = [d.name.value for d in directives if d.name.value not in COLLECTION_DIRECTIVES]
    if unknown:
        raise Declined(f"the directive @{unknown[0]}")
    skip = get_directive_values(GraphQLSkipDirective, selection, variables)
    if skip is not None and skip["if"] is True:
        return False
    include = get_directive_values(GraphQLIncludeDirective, selection, variables)
    return not (include is not None and include["if"] is False)
