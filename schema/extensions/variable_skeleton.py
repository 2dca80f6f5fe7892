"""The part of a document the variable rules read: the paths to its variables.

Three of graphql-core's rules (no undefined variables, no unused variables, variables in
allowed positions) read each operation's variable usages, which graphql-core finds by a
second walk of the whole document with its type information: a third of the validation of
a document of 800 distinct fields. The usages are the same in the document's skeleton:
every definition as it is (its variable definitions and directives included), but in each
selection set only the selections that hold a variable in their arguments or directives,
lead to one, or spread a fragment. A kept field keeps its name, arguments and directives,
so each usage has the same expected type, default and parent type as in the document.
"""

from __future__ import annotations

import dataclasses

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    SelectionNode,
    SelectionSetNode,
    ValueNode,
    VariableNode,
)
from graphql.validation import (
    NoUndefinedVariablesRule,
    NoUnusedVariablesRule,
    VariablesInAllowedPositionRule,
)

from schema.extensions.walk import selection_sets_outer_first

#: The rules that read variable usages, and nothing else of a document's selections.
VARIABLE_RULES = (NoUndefinedVariablesRule, NoUnusedVariablesRule, VariablesInAllowedPositionRule)

_EMPTY = SelectionSetNode(selections=())


def variable_skeleton(document: DocumentNode) -> DocumentNode | None:
    """`document` with only the selections its variable usages and spreads need; None
    when it defines and uses no variable at all (the rules have nothing to read).

    Iterative: every selection set is pruned after the selection sets inside it."""
    defines = any(
        getattr(definition, "variable_definitions", None) for definition in document.definitions
    )
    selection_sets = selection_sets_outer_first(document)
    pruned: dict[int, SelectionSetNode] = {}
    uses: list[bool] = []
    for selection_set in reversed(selection_sets):  # inner sets first
        kept = [
            kept_selection
            for selection in selection_set.selections
            if (kept_selection := _kept(selection, pruned, uses)) is not None
        ]
        pruned[id(selection_set)] = (
            dataclasses.replace(selection_set, selections=tuple(kept)) if kept else _EMPTY
        )
    if not defines and not uses:
        return None
    return DocumentNode(
        definitions=tuple(
            dataclasses.replace(definition, selection_set=pruned[id(definition.selection_set)])
            if isinstance(definition, OperationDefinitionNode | FragmentDefinitionNode)
            else definition
            for definition in document.definitions
        ),
        loc=document.loc,
    )


def _kept(
    selection: SelectionNode, pruned: dict[int, SelectionSetNode], uses: list[bool]
) -> SelectionNode | None:
    values: list[ValueNode] = [
        argument.value
        for directive in selection.directives or ()
        for argument in directive.arguments or ()
    ]
    if isinstance(selection, FieldNode):
        values.extend(argument.value for argument in selection.arguments or ())
    holds = _holds_variable(values)
    if holds:
        uses.append(True)
    if not isinstance(selection, FieldNode | InlineFragmentNode):
        return selection  # a fragment spread
    inner = selection.selection_set
    inner_kept = pruned[id(inner)] if inner is not None else _EMPTY
    if not inner_kept.selections and not holds:
        return None
    if inner is None:
        return selection
    return dataclasses.replace(selection, selection_set=inner_kept)


def _holds_variable(values: list[ValueNode]) -> bool:
    while values:
        value = values.pop()
        if isinstance(value, VariableNode):
            return True
        if isinstance(value, ListValueNode):
            values.extend(value.values)
        elif isinstance(value, ObjectValueNode):
            values.extend(field.value for field in value.fields)
    return False
