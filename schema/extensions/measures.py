"""What a parsed query would cost, measured before validation and execution.

Every walk follows fragments, computes each fragment once (so a fragment bomb costs the
walk no more than its text) and treats a cycle as empty: the standard validation that
runs after the limits rejects cycles, unknown fields and wrong types; these measures only
have to stay cheap and never under-count a valid query.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValueNode,
    VariableNode,
    get_named_type,
    value_from_ast_untyped,
)
from graphql.language import Lexer, Source, TokenKind

# Introspection answers from the schema in memory: it reads no table and its depth is
# bounded by the schema's, so it is left to the token limit.
INTROSPECTION_ROOT_FIELDS = frozenset({"__schema", "__type"})
# strawberry keeps the StrawberryField under this key of the graphql-core field.
_STRAWBERRY_DEFINITION = "strawberry-definition"
COST_METADATA_KEY = "cost"


def token_count(query: str, cap: int) -> int:
    """Tokens in `query` as graphql-core's parser counts them, stopping at `cap`.

    Stops early at a lexical error: the parser reports that one itself.
    """
    lexer = Lexer(Source(query))
    count = 0
    try:
        while count < cap and lexer.advance().kind != TokenKind.EOF:
            count += 1
    except GraphQLError:
        pass
    return count


def executed_operations(
    document: DocumentNode, operation_name: str | None
) -> list[OperationDefinitionNode]:
    """The operations a request may run: the named one, or every one when unnamed."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name is not None:
        named = [op for op in operations if op.name is not None and op.name.value == operation_name]
        if named:
            return named
    return operations


def _fragments(document: DocumentNode) -> dict[str, FragmentDefinitionNode]:
    return {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}


class _FragmentMemo:
    """Computes each fragment's measure once; a fragment inside its own expansion is 0."""

    def __init__(
        self,
        document: DocumentNode,
        measure: Callable[[FragmentDefinitionNode], int],
    ) -> None:
        self._fragments = _fragments(document)
        self._measure = measure
        self._done: dict[str, int] = {}
        self._active: set[str] = set()

    def __call__(self, name: str) -> int:
        if name in self._done:
            return self._done[name]
        fragment = self._fragments.get(name)
        if fragment is None or name in self._active:
            return 0
        self._active.add(name)
        value = self._measure(fragment)
        self._active.discard(name)
        self._done[name] = value
        return value


def query_depth(document: DocumentNode, operation_name: str | None = None) -> int:
    """The deepest field nesting of the executed operations (a root field is depth 1)."""

    def depth(selection_set: SelectionSetNode | None) -> int:
        deepest = 0
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                deepest = max(deepest, 1 + depth(selection.selection_set))
            elif isinstance(selection, InlineFragmentNode):
                deepest = max(deepest, depth(selection.selection_set))
            elif isinstance(selection, FragmentSpreadNode):
                deepest = max(deepest, fragment_depth(selection.name.value))
        return deepest

    fragment_depth = _FragmentMemo(document, lambda fragment: depth(fragment.selection_set))
    deepest = 0
    for operation in executed_operations(document, operation_name):
        for selection in operation.selection_set.selections:
            if (
                isinstance(selection, FieldNode)
                and selection.name.value in INTROSPECTION_ROOT_FIELDS
            ):
                continue
            deepest = max(deepest, depth(SelectionSetNode(selections=(selection,))))
    return deepest


def alias_count(document: DocumentNode, operation_name: str | None = None) -> int:
    """Aliased fields the executed operations would resolve, each fragment spread counted."""

    def aliases(selection_set: SelectionSetNode | None) -> int:
        total = 0
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                total += (selection.alias is not None) + aliases(selection.selection_set)
            elif isinstance(selection, InlineFragmentNode):
                total += aliases(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                total += fragment_aliases(selection.name.value)
        return total

    fragment_aliases = _FragmentMemo(document, lambda fragment: aliases(fragment.selection_set))
    return max(
        (aliases(op.selection_set) for op in executed_operations(document, operation_name)),
        default=0,
    )


@dataclass(frozen=True, slots=True)
class CostPolicy:
    """What each field costs and which arguments multiply it.

    A field's own cost comes from `field_costs` ("Type.field"), else from the strawberry
    field's `metadata={"cost": n}`, else from `type_costs` (every field of a type), else 0.
    A field costs `multiplier * (own cost + its selections' cost)`, where the multiplier is the
    product of its multiplier arguments' values: the length of a list (`ids`), or an
    integer (`limit`, `months`); an argument left out counts at its schema default, and
    one whose value is unknown counts as `unknown_list_size`.
    """

    field_costs: Mapping[str, int] = field(default_factory=dict)
    type_costs: Mapping[str, int] = field(default_factory=dict)
    multiplier_arguments: frozenset[str] = frozenset({"ids", "limit", "months"})
    unknown_list_size: int = 100

    def own_cost(self, type_name: str, field_name: str, definition: GraphQLField) -> int:
        explicit = self.field_costs.get(f"{type_name}.{field_name}")
        if explicit is not None:
            return explicit
        strawberry_field = (definition.extensions or {}).get(_STRAWBERRY_DEFINITION)
        metadata = getattr(strawberry_field, "metadata", None) or {}
        cost = metadata.get(COST_METADATA_KEY)
        if isinstance(cost, int):
            return cost
        return self.type_costs.get(type_name, 0)

    def multiplier(
        self, node: FieldNode, definition: GraphQLField, variables: Mapping[str, Any]
    ) -> int:
        given = {argument.name.value: argument.value for argument in node.arguments or ()}
        product = 1
        for name, argument in definition.args.items():
            if name not in self.multiplier_arguments:
                continue
            if name in given:
                size = self._size_of_node(given[name], variables)
            else:
                size = self._size_of_value(argument.default_value)
            product *= max(1, size)
        return product

    def _size_of_node(self, node: ValueNode, variables: Mapping[str, Any]) -> int:
        if isinstance(node, ListValueNode):
            return len(node.values)
        if isinstance(node, IntValueNode):
            return int(node.value)
        if isinstance(node, VariableNode):
            return self._size_of_value(variables.get(node.name.value))
        return 1

    def variable_sizes(self, variables: object) -> tuple[tuple[str, int], ...]:
        """Each given variable's size, the only thing of its value the cost reads."""
        if not isinstance(variables, Mapping):
            return ()
        return tuple(sorted((str(name), self._size_of_value(v)) for name, v in variables.items()))

    def _size_of_value(self, value: Any) -> int:
        if isinstance(value, list | tuple):
            return len(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return self.unknown_list_size if value is None else 1


def query_cost(
    schema: GraphQLSchema,
    document: DocumentNode,
    policy: CostPolicy,
    operation_name: str | None = None,
    variables: Mapping[str, Any] | None = None,
) -> int:
    """The estimated DynamoDB work of the executed operations, under `policy`."""
    given: Mapping[str, Any] = variables if isinstance(variables, Mapping) else {}
    values: dict[str, Any] = {}

    def selections_cost(
        selection_set: SelectionSetNode | None, parent: GraphQLNamedType | None
    ) -> int:
        total = 0
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                total += field_cost(selection, parent)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                scope = schema.get_type(condition.name.value) if condition else parent
                total += selections_cost(selection.selection_set, scope)
            elif isinstance(selection, FragmentSpreadNode):
                total += fragment_cost(selection.name.value)
        return total

    def field_cost(node: FieldNode, parent: GraphQLNamedType | None) -> int:
        if not isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
            return 0
        definition = parent.fields.get(node.name.value)
        if definition is None:
            return 0  # unknown: validation rejects it
        own = policy.own_cost(parent.name, node.name.value, definition)
        inner = selections_cost(node.selection_set, get_named_type(definition.type))
        return policy.multiplier(node, definition, values) * (own + inner)

    fragment_cost = _FragmentMemo(
        document,
        lambda fragment: selections_cost(
            fragment.selection_set, schema.get_type(fragment.type_condition.name.value)
        ),
    )
    costs = []
    for operation in executed_operations(document, operation_name):
        values.clear()
        values.update(_variable_defaults(operation))
        values.update(given)
        root = schema.get_root_type(operation.operation)
        costs.append(selections_cost(operation.selection_set, root))
    return max(costs, default=0)


def _variable_defaults(operation: OperationDefinitionNode) -> dict[str, Any]:
    return {
        definition.variable.name.value: value_from_ast_untyped(definition.default_value)
        for definition in operation.variable_definitions or ()
        if definition.default_value is not None
    }
