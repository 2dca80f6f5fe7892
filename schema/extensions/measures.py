"""What a parsed query would cost, measured before validation and execution.

Every walk is iterative (schema/extensions/walk.py), follows fragments, computes each
fragment once (so a fragment bomb costs the walk no more than its text) and treats a
cycle as empty: the standard validation that runs after the limits rejects cycles,
unknown fields and wrong types; these measures only have to stay cheap and never
under-count a valid query.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from operator import add
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
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
from graphql.execution.values import get_variable_values
from graphql.language import Lexer, Source, TokenKind

from schema.extensions.walk import FieldStep, counted, fold, fragment_values, keep, plus_one, same

__all__ = [
    "COST_METADATA_KEY",
    "INTROSPECTION_ROOT_FIELDS",
    "SATURATED",
    "CostPolicy",
    "alias_count",
    "coerced_variables",
    "executed_operations",
    "query_cost",
    "query_depth",
    "token_count",
]

# Introspection answers from the schema in memory: it reads no table and its depth is
# bounded by the schema's, so it is left to the token limit.
INTROSPECTION_ROOT_FIELDS = frozenset({"__schema", "__type"})
# strawberry keeps the StrawberryField under this key of the graphql-core field.
_STRAWBERRY_DEFINITION = "strawberry-definition"
COST_METADATA_KEY = "cost"
#: The largest figure a measure reports: JavaScript's largest exact integer. A client may
#: send any integer (`limit: 1e400` as a variable, a literal of 5,000 digits); a measure
#: past every limit needs no more precision, and its figure stays a JSON number every
#: reader (and orjson, which stops at 64 bits) can hold.
SATURATED = 2**53 - 1


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


def query_depth(document: DocumentNode, operation_name: str | None = None) -> int:
    """The deepest field nesting of the executed operations (a root field is depth 1)."""

    def depth(selection_set: SelectionSetNode, spread: Callable[[str], int]) -> int:
        return fold(selection_set, None, combine=max, field=counted, inline=keep, spread=spread)

    fragment_depth = fragment_values(document, lambda fragment, s: depth(fragment.selection_set, s))
    deepest = 0
    for operation in executed_operations(document, operation_name):
        for selection in operation.selection_set.selections:
            if (
                isinstance(selection, FieldNode)
                and selection.name.value in INTROSPECTION_ROOT_FIELDS
            ):
                continue
            deepest = max(deepest, depth(SelectionSetNode(selections=(selection,)), fragment_depth))
    return deepest


def alias_count(document: DocumentNode, operation_name: str | None = None) -> int:
    """Aliased fields the executed operations would resolve, each fragment spread counted."""

    def aliases(selection_set: SelectionSetNode, spread: Callable[[str], int]) -> int:
        return fold(selection_set, None, combine=add, field=_aliased, inline=keep, spread=spread)

    fragment_aliases = fragment_values(
        document, lambda fragment, s: aliases(fragment.selection_set, s)
    )
    return max(
        (
            aliases(op.selection_set, fragment_aliases)
            for op in executed_operations(document, operation_name)
        ),
        default=0,
    )


def _aliased(node: FieldNode, scope: None) -> FieldStep[None]:
    return None, (plus_one if node.alias is not None else same)


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
            # Past 15 digits, the figure saturates (Python's int() refuses 4,300 digits).
            digits = node.value
            if len(digits.lstrip("-")) <= 15:
                return int(digits)
            return -1 if digits.startswith("-") else SATURATED
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
            return min(value, SATURATED)
        if isinstance(value, float) and value.is_integer():
            # What graphql-core coerces an Int variable sent as `100.0` to: the memo's key
            # must tell it from `1.0` as the measure (on coerced values) does.
            return int(min(value, SATURATED))
        return self.unknown_list_size if value is None else 1


def query_cost(
    schema: GraphQLSchema,
    document: DocumentNode,
    policy: CostPolicy,
    operation_name: str | None = None,
    variables: Mapping[str, Any] | None = None,
) -> int:
    """The estimated DynamoDB work of the executed operations, under `policy`.

    Variables count at the values execution will see: coerced by graphql-core against the
    operation's definitions (`$l: Int` sent as `100.0` counts as 100), defaults applied.
    """
    given: Mapping[str, Any] = variables if isinstance(variables, Mapping) else {}
    values: dict[str, Any] = {}

    def selections_cost(
        selection_set: SelectionSetNode,
        parent: GraphQLNamedType | None,
        spread: Callable[[str], int],
    ) -> int:
        return fold(
            selection_set, parent, combine=add, field=field_step, inline=inline, spread=spread
        )

    def field_step(node: FieldNode, parent: GraphQLNamedType | None) -> FieldStep[Any]:
        if not isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
            return None
        definition = parent.fields.get(node.name.value)
        if definition is None:
            return None  # unknown: validation rejects it
        own = policy.own_cost(parent.name, node.name.value, definition)
        multiplier = policy.multiplier(node, definition, values)
        return get_named_type(definition.type), lambda inner: multiplier * (own + inner)

    def inline(node: InlineFragmentNode, parent: GraphQLNamedType | None) -> Any:
        condition = node.type_condition
        return schema.get_type(condition.name.value) if condition else parent

    fragment = fragment_values(
        document,
        lambda definition, spread: selections_cost(
            definition.selection_set, schema.get_type(definition.type_condition.name.value), spread
        ),
    )
    costs = []
    for operation in executed_operations(document, operation_name):
        values.clear()
        values.update(coerced_variables(schema, operation, given))
        root = schema.get_root_type(operation.operation)
        costs.append(selections_cost(operation.selection_set, root, fragment))
    return min(max(costs, default=0), SATURATED)


def coerced_variables(
    schema: GraphQLSchema, operation: OperationDefinitionNode, given: Mapping[str, Any]
) -> Mapping[str, Any]:
    """The operation's variables as execution coerces them (graphql-core's own function, so
    the measure and execution cannot disagree), defaults applied; values that do not
    coerce are counted as sent: execution refuses them before reading anything."""
    try:
        coerced = get_variable_values(schema, operation.variable_definitions or (), dict(given))
    except Exception:  # a definition naming an unknown type: validation reports it
        coerced = []
    if isinstance(coerced, list):
        return {**_variable_defaults(operation), **given}
    return coerced.coerced


def _variable_defaults(operation: OperationDefinitionNode) -> dict[str, Any]:
    return {
        definition.variable.name.value: value_from_ast_untyped(definition.default_value)
        for definition in operation.variable_definitions or ()
        if definition.default_value is not None
    }
