"""The schema coordinates an operation reads (`Query.users`, `Query.users(ids:)`,
`User.alert`, an input field or enum value written literally): what field usage counts
(gateway/observability/field_usage.py), computed once per prepared operation
(schema/prepared.py)."""

from __future__ import annotations

from dataclasses import dataclass

from graphql import (
    DocumentNode,
    EnumValueNode,
    FieldNode,
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

from schema.extensions.measures import executed_operations
from schema.extensions.walk import fragments_of

__all__ = ["Coordinates", "coordinates_of"]


@dataclass(frozen=True, eq=False, slots=True)
class Coordinates:
    """The schema coordinates one operation of one document reads. Compared and hashed by
    identity: the prepared operation hands every request of a document the same object."""

    names: frozenset[str]


def coordinates_of(
    schema: GraphQLSchema, document: DocumentNode, operation_name: str | None = None
) -> frozenset[str]:
    """Every schema coordinate the executed operation(s) of `document` read: `Type.field`
    for each field (introspection left out), `Type.field(arg:)` for each argument given,
    `Input.field` and `Enum.VALUE` for what an argument's literal holds."""
    found: set[str] = set()
    fragments = fragments_of(document)
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
