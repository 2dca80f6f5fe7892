"""The compiler of operations (`schema.execution.operation`): an operation's root fields and
the selection under them, merged by response name through fragments as graphql-core's field
collection merges them, `@include`/`@skip` applied for one set of their values; or what
makes it decline (`Declined`, with the reason `insight-gateway explain` prints), which
leaves the operation to graphql-core."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLIncludeDirective,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLSkipDirective,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    get_directive_values,
)
from graphql.execution import VariableValues
from strawberry.types.field import StrawberryField

from schema.access_plan import reads_of, user_fields
from schema.execution.generated import Selection, generate
from schema.execution.operation import (
    NAME,
    ONE,
    QUERY_ROOTS,
    CompiledOperation,
    PlannedField,
    RootField,
)
from schema.execution.plan import COLLECTION_DIRECTIVES, STRAWBERRY_DEFINITION, compile_level
from schema.field_reads import UndeclaredRead
from schema.user import User

__all__ = ["compile_object", "compiled_or_why", "switches_of"]

#: Merged field nodes by response name, in the order the response has them.
Grouped: TypeAlias = dict[str, list[FieldNode]]


class Declined(Exception):
    """Something the compiled operation leaves to graphql-core."""


def _planned_field(
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


def compiled_or_why(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: VariableValues,
) -> CompiledOperation | str:
    """The compiled operation, or what makes it decline (`insight-gateway explain`)."""
    try:
        return _compile(schema, operation, fragments, variables)
    except (Declined, UndeclaredRead) as declined:
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
            planned.append(_planned_field(field.planned, field_def, node))
        fields.append((field, nested))
    names = [grouped[field.response_name][0].name.value for field, _ in fields]
    single = len(set(names)) == len(names) and all(n is None or n.single for _, n in fields)
    keeps_part = single and _of_entity_rows(object_type)
    return Selection(object_type.name, tuple(fields), single, keeps_part), planned


def _of_entity_rows(object_type: GraphQLObjectType) -> bool:
    """True when the type's objects are an entity's rows (`schema.declared.output` of a
    record with an entity): rows the cache may keep."""
    definition = object_type.extensions.get(STRAWBERRY_DEFINITION)
    record = getattr(getattr(definition, "origin", None), "__record__", None)
    return getattr(record, "__entity__", None) is not None


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
