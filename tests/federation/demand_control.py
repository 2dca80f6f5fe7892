"""A router's static cost estimate of an operation, from the `@cost` and `@listSize` in an SDL:
the IBM GraphQL cost specification's algorithm as Apollo Router's demand control implements it
(`static_estimated`; apollo-router's `cost_calculator/static_cost.rs` and `directives.rs`), for
the test that compares it with the gateway's own measure. Written from that description here,
so that no part of it is the gateway's code.

- an operation costs its fields, plus 10 for a mutation;
- a field costs `size * (weight + selections) + arguments`: `weight` is its `@cost`, else 1
  for an object, interface or union and 0 for a scalar or enum; `size` is 1 for a single
  value, and for a list the largest of its `@listSize` slicing arguments (given, or at their
  default), else its `assumedSize`, else the router's `list_size` setting;
- an argument costs its `@cost` (0 without), an input object sent in it 1 unless that argument
  or input field has a `@cost`, plus what the object holds; a list, the sum of its items;
- `__typename` costs 0, a field skipped by `@skip`/`@include` 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    BooleanValueNode,
    DirectiveNode,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    NullValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    ValueNode,
    VariableNode,
    get_named_type,
    value_from_ast_untyped,
)

#: Apollo Router's `static_estimated.list_size` (its documentation's example value).
ROUTER_LIST_SIZE = 10
MUTATION_BASE_COST = 10


def _directive(
    target: GraphQLField | GraphQLArgument | GraphQLInputField, name: str
) -> dict[str, Any] | None:
    node = target.ast_node
    for directive in (node.directives if node is not None else None) or ():
        if directive.name.value == name:
            return {
                a.name.value: value_from_ast_untyped(a.value) for a in directive.arguments or ()
            }
    return None


def _weight(target: GraphQLField | GraphQLArgument | GraphQLInputField) -> int | None:
    cost = _directive(target, "cost")
    return None if cost is None else int(cost["weight"])


def _is_list(field: GraphQLField) -> bool:
    inner = field.type.of_type if isinstance(field.type, GraphQLNonNull) else field.type
    return isinstance(inner, GraphQLList)


def _skipped(node: FieldNode, variables: Mapping[str, Any]) -> bool:
    def condition(directive: DirectiveNode) -> bool | None:
        for argument in directive.arguments or ():
            if argument.name.value == "if":
                value = argument.value
                if isinstance(value, BooleanValueNode):
                    return value.value
                if isinstance(value, VariableNode):
                    return bool(variables.get(value.name.value))
        return None

    for directive in node.directives or ():
        if directive.name.value == "skip" and condition(directive) is True:
            return True
        if directive.name.value == "include" and condition(directive) is False:
            return True
    return False


class StaticEstimate:
    def __init__(
        self, schema: GraphQLSchema, document: DocumentNode, variables: Mapping[str, Any]
    ) -> None:
        self.schema = schema
        self.variables = variables
        self.fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        self.operations = [
            d for d in document.definitions if isinstance(d, OperationDefinitionNode)
        ]

    def operation(self, operation: OperationDefinitionNode) -> int:
        base = MUTATION_BASE_COST if operation.operation is OperationType.MUTATION else 0
        root = self.schema.get_root_type(operation.operation)
        assert root is not None
        return base + self.selection_set(operation.selection_set, root)

    def selection_set(
        self, selection_set: SelectionSetNode | None, parent: GraphQLNamedType
    ) -> int:
        total = 0
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                total += self.field(selection, parent)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                scope = self.schema.get_type(condition.name.value) if condition else parent
                assert scope is not None
                total += self.selection_set(selection.selection_set, scope)
            elif isinstance(selection, FragmentSpreadNode):
                fragment = self.fragments[selection.name.value]
                scope = self.schema.get_type(fragment.type_condition.name.value)
                assert scope is not None
                total += self.selection_set(fragment.selection_set, scope)
        return total

    def field(self, node: FieldNode, parent: GraphQLNamedType) -> int:
        if node.name.value == "__typename" or _skipped(node, self.variables):
            return 0
        assert isinstance(parent, GraphQLObjectType)
        definition = parent.fields[node.name.value]
        named = get_named_type(definition.type)
        count = self.list_size(node, definition) if _is_list(definition) else 1
        weight = _weight(definition)
        if weight is None:
            weight = 0 if isinstance(named, GraphQLScalarType | GraphQLEnumType) else 1
        inner = self.selection_set(node.selection_set, named)
        arguments = sum(
            self.argument(argument.value, definition.args[argument.name.value])
            for argument in node.arguments or ()
        )
        return count * (weight + inner) + arguments

    def list_size(self, node: FieldNode, definition: GraphQLField) -> int:
        list_size = _directive(definition, "listSize")
        if list_size is None:
            return ROUTER_LIST_SIZE
        slicing: dict[str, int] = {}
        names = list_size.get("slicingArguments") or []
        for name in names:
            # The SDL's default, as written (graphql-core keeps the literal on the AST node).
            node_of = definition.args[name].ast_node
            default = node_of.default_value if node_of is not None else None
            if isinstance(default, IntValueNode):
                slicing[name] = int(default.value)
        for argument in node.arguments or ():
            name = argument.name.value
            if name not in names:
                continue
            if isinstance(argument.value, IntValueNode):
                slicing[name] = int(argument.value.value)
            elif isinstance(argument.value, VariableNode):
                value = self.variables.get(argument.value.name.value)
                if isinstance(value, int):
                    slicing[name] = value
        if names and list_size.get("requireOneSlicingArgument", True) and len(slicing) != 1:
            raise ValueError(f"{node.name.value}: exactly one slicing argument is required")
        if slicing:
            return max(slicing.values())
        assumed = list_size.get("assumedSize")
        return ROUTER_LIST_SIZE if assumed is None else int(assumed)

    def argument(self, value: ValueNode, definition: GraphQLArgument | GraphQLInputField) -> int:
        weight = _weight(definition)
        named = get_named_type(definition.type)
        if isinstance(value, ObjectValueNode) and isinstance(named, GraphQLInputObjectType):
            return (1 if weight is None else weight) + sum(
                self.argument(item.value, named.fields[item.name.value]) for item in value.fields
            )
        if isinstance(value, ListValueNode):
            return (weight or 0) + sum(self.argument(item, definition) for item in value.values)
        if isinstance(value, VariableNode):
            given = self.variables.get(value.name.value)
            return 0 if given is None else self.variable(given, definition)
        if isinstance(value, NullValueNode):
            return 0
        return weight or 0

    def variable(self, value: Any, definition: GraphQLArgument | GraphQLInputField) -> int:
        weight = _weight(definition)
        named = get_named_type(definition.type)
        if isinstance(value, dict) and isinstance(named, GraphQLInputObjectType):
            return (1 if weight is None else weight) + sum(
                self.variable(item, named.fields[name]) for name, item in value.items()
            )
        if isinstance(value, list):
            return (weight or 0) + sum(self.variable(item, definition) for item in value)
        if value is None:
            return 0
        return weight or 0


def static_estimate(
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Mapping[str, Any] | None = None,
) -> int:
    """A router's estimate of `document`'s (one) operation under `schema`'s directives."""
    estimate = StaticEstimate(schema, document, variables or {})
    [operation] = estimate.operations
    return estimate.operation(operation)
