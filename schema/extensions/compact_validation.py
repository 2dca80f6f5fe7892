"""Validation of a document's compact form first: repeated selections are validated once.

graphql-core's validation costs about 15 µs a selection, so the worst documents the limits
let through (1,000 selections) cost 10 times the dashboard query. Most of their work is
repetition, and repetition changes no verdict. The compact form drops, in each selection
set, every selection identical to an earlier sibling (`...F` 499 times is `...F` once),
and empties (to `{ __typename }`) the selections of a field whose response name the
document uses nowhere else when an earlier sibling of the same name has the very same
selections (`a0: viewer { … } … a29: viewer { … }` is validated as one viewer's fields).

Why the verdict is the same: every rule but the overlap rule reads a selection in its
context (its parent type, its operation's variables, its fragments), which a sibling shares,
so an error in a dropped or emptied copy is also one in the copy kept. The overlap rule
finds no conflict between two identical fields (by induction on their selections); a field
identical to a kept one conflicts with another exactly when the kept one does; and a field
whose response name is unique is compared with none. The subscription rule counts root
fields by response name, which a dropped duplicate shares. Selections with a directive
other than `@include` and `@skip` (`@defer` labels must be unique) are kept as they are.

A compact form that validates is the document's verdict. One that does not is validated
again whole, so that the errors (their number, messages and locations) are exactly the
document's own: a refused document costs up to twice its validation (and is charged to
its sender's budget by its size, gateway/protection/budget_charge.py).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Collection, Hashable
from typing import Any

from graphql import (
    DirectiveNode,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    InlineFragmentNode,
    NameNode,
    OperationDefinitionNode,
    SelectionNode,
    SelectionSetNode,
    ValueNode,
    VariableNode,
    print_ast,
)
from graphql import validate as graphql_validate

from schema.extensions.variable_skeleton import VARIABLE_RULES, variable_skeleton
from schema.extensions.walk import selection_sets_outer_first

_TYPENAME = SelectionSetNode(selections=(FieldNode(name=NameNode(value="__typename")),))
_HARMLESS_DIRECTIVES = frozenset({"include", "skip"})

Validate = Callable[[GraphQLSchema, DocumentNode, Any], list[GraphQLError]]


def validate_compacted(
    validate: Validate, schema: GraphQLSchema, document: DocumentNode, rules: Any
) -> list[GraphQLError]:
    """`validate`'s errors for `document`, found on its compact form when that is valid.

    The compact form is checked in two parts: by every rule but the variable rules, and by
    those on its variable skeleton (graphql-core's own `validate`, schema/extensions/
    variable_skeleton.py), which reads only the paths to its variables."""
    compact = compacted(document) or document
    variable_rules = [rule for rule in rules if rule in VARIABLE_RULES]
    others = tuple(rule for rule in rules if rule not in VARIABLE_RULES)
    skeleton = variable_skeleton(compact) if variable_rules else None
    if not validate(schema, compact, others) and not (
        skeleton is not None and graphql_validate(schema, skeleton, variable_rules)
    ):
        return []
    return validate(schema, document, rules)


def compacted(document: DocumentNode) -> DocumentNode | None:
    """The compact form of `document`, or None when it has nothing to compact.

    Iterative: every selection set is keyed after the selection sets inside it."""
    selection_sets = selection_sets_outer_first(document)
    response_names = Counter(
        (selection.alias or selection.name).value
        for selection_set in selection_sets
        for selection in selection_set.selections
        if isinstance(selection, FieldNode)
    )
    unique = {name for name, count in response_names.items() if count == 1}
    keys: dict[int, Hashable] = {}
    replaced: dict[int, SelectionSetNode] = {}
    # A selection set comes after the one holding it: reversed, inner sets come first.
    for selection_set in reversed(selection_sets):
        _compact(selection_set, unique, keys, replaced)
    if not replaced:
        return None
    definitions = [
        dataclasses.replace(definition, selection_set=replaced[id(definition.selection_set)])
        if isinstance(definition, OperationDefinitionNode | FragmentDefinitionNode)
        and id(definition.selection_set) in replaced
        else definition
        for definition in document.definitions
    ]
    return DocumentNode(definitions=tuple(definitions), loc=document.loc)


def _compact(
    selection_set: SelectionSetNode,
    unique: Collection[str],
    keys: dict[int, Hashable],
    replaced: dict[int, SelectionSetNode],
) -> None:
    """Keys `selection_set` (by its original selections) and, if anything in or under it
    is compacted, records its compact form in `replaced`."""
    seen: set[Hashable] = set()
    fields_seen: set[tuple[str, Hashable]] = set()
    selections: list[SelectionNode] = []
    own_keys: list[Hashable] = []
    changed = False
    for selection in selection_set.selections:
        key = _key(selection, keys)
        own_keys.append(key)
        if key in seen:
            changed = True
            continue
        seen.add(key)
        inner = getattr(selection, "selection_set", None)
        if isinstance(selection, FieldNode) and inner is not None and key[0] == "field":
            same_selections = (selection.name.value, keys[id(inner)])
            if (
                same_selections in fields_seen
                and (selection.alias or selection.name).value in unique
            ):
                selections.append(dataclasses.replace(selection, selection_set=_TYPENAME))
                changed = True
                continue
            fields_seen.add(same_selections)
        if isinstance(selection, FieldNode | InlineFragmentNode) and id(inner) in replaced:
            selection = dataclasses.replace(selection, selection_set=replaced[id(inner)])
            changed = True
        selections.append(selection)
    # Order changes no verdict, and a duplicate is dropped: a set of the selections.
    keys[id(selection_set)] = frozenset(own_keys)
    if changed:
        replaced[id(selection_set)] = dataclasses.replace(
            selection_set, selections=tuple(selections)
        )


def _key(selection: SelectionNode, keys: dict[int, Hashable]) -> tuple[Hashable, ...]:
    """What makes two selections the same, their locations aside. A selection with a
    directive validation reads across selections is its own (never equal to another)."""
    directives = selection.directives or ()
    if any(directive.name.value not in _HARMLESS_DIRECTIVES for directive in directives):
        return ("own", id(selection))
    inner = getattr(selection, "selection_set", None)
    inner_key = None if inner is None else keys[id(inner)]
    if isinstance(selection, FieldNode):
        alias = selection.alias.value if selection.alias else None
        arguments = tuple(
            (argument.name.value, _value_key(argument.value))
            for argument in selection.arguments or ()
        )
        return ("field", alias, selection.name.value, arguments, _directives(directives), inner_key)
    if isinstance(selection, InlineFragmentNode):
        condition = selection.type_condition.name.value if selection.type_condition else None
        return ("inline", condition, _directives(directives), inner_key)
    if isinstance(selection, FragmentSpreadNode):
        return ("spread", selection.name.value, _directives(directives))
    return ("own", id(selection))


def _directives(directives: Collection[DirectiveNode]) -> Hashable:
    return tuple(
        (
            directive.name.value,
            tuple((a.name.value, _value_key(a.value)) for a in directive.arguments or ()),
        )
        for directive in directives
    )


def _value_key(node: ValueNode) -> Hashable:
    if isinstance(node, VariableNode):
        return ("$", node.name.value)
    value = getattr(node, "value", None)
    if isinstance(value, str | bool):  # an int, float, string, boolean or enum
        return (node.kind, value)
    return print_ast(node)  # null, a list or an object
