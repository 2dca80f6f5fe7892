"""Walks of a parsed document with an explicit stack, never by recursion.

A document is what the client sent: 2,000 tokens can nest fields hundreds deep or chain
hundreds of fragments, and a recursive walk would meet the interpreter's recursion limit
(a RecursionError: an internal error and a long traceback per request) before any limit
could refuse the document. So every measure folds a selection set here, iteratively, and
fragments are measured once each, in an order where a fragment comes after every fragment
it spreads; a fragment inside its own expansion (a cycle, which validation refuses with
graphql-core's NoFragmentCycles) counts as empty.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionNode,
    SelectionSetNode,
)

S = TypeVar("S")

#: What a field does with its selections' combined value; None: its selections are not
#: walked and the field is worth 0 (a field the schema does not know).
FieldStep = tuple[S, Callable[[int], int]] | None


def fragments_of(document: DocumentNode) -> dict[str, FragmentDefinitionNode]:
    return {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}


def selection_sets_outer_first(document: DocumentNode) -> list[SelectionSetNode]:
    """Every selection set of the document's operations and fragments, each before the
    selection sets inside it (read it reversed for the inner ones first)."""
    selection_sets: list[SelectionSetNode] = []
    pending = [
        definition.selection_set
        for definition in document.definitions
        if isinstance(definition, OperationDefinitionNode | FragmentDefinitionNode)
    ]
    while pending:
        selection_set = pending.pop()
        selection_sets.append(selection_set)
        for selection in selection_set.selections:
            inner = getattr(selection, "selection_set", None)
            if inner is not None:
                pending.append(inner)
    return selection_sets


def spreads_in(selection_set: SelectionSetNode | None) -> Iterator[str]:
    """The fragment names spread anywhere under `selection_set` (fragments not followed)."""
    pending = [selection_set] if selection_set is not None else []
    while pending:
        for selection in pending.pop().selections:
            if isinstance(selection, FragmentSpreadNode):
                yield selection.name.value
            elif isinstance(selection, FieldNode | InlineFragmentNode) and selection.selection_set:
                pending.append(selection.selection_set)


@dataclass(frozen=True, slots=True)
class FragmentOrder:
    """The document's fragments, each after those it spreads, and those on a cycle."""

    order: tuple[str, ...]
    cyclic: frozenset[str]
    spreads: dict[str, tuple[str, ...]]


def fragment_order(fragments: dict[str, FragmentDefinitionNode]) -> FragmentOrder:
    """A depth-first post-order of the fragments' spreads, with an explicit stack."""
    spreads = {
        name: tuple(dict.fromkeys(spreads_in(fragment.selection_set)))
        for name, fragment in fragments.items()
    }
    order: list[str] = []
    cyclic: set[str] = set()
    done: set[str] = set()
    for start in fragments:
        if start in done:
            continue
        path: list[str] = [start]
        on_path = {start}
        children: list[Iterator[str]] = [iter(spreads[start])]
        while children:
            child = next(children[-1], None)
            if child is None:
                finished = path.pop()
                on_path.discard(finished)
                children.pop()
                done.add(finished)
                order.append(finished)
            elif child in on_path:
                cyclic.update(path[path.index(child) :])
            elif child in fragments and child not in done:
                path.append(child)
                on_path.add(child)
                children.append(iter(spreads[child]))
    return FragmentOrder(tuple(order), frozenset(cyclic), spreads)


@dataclass(slots=True)
class _Frame(Generic[S]):
    selections: Iterator[SelectionNode]
    scope: S
    finish: Callable[[int], int]
    value: int = 0


def fold(
    selection_set: SelectionSetNode,
    scope: S,
    *,
    combine: Callable[[int, int], int],
    field: Callable[[FieldNode, S], FieldStep[S]],
    inline: Callable[[InlineFragmentNode, S], S],
    spread: Callable[[str], int],
) -> int:
    """The value of `selection_set`: its selections' values combined (from 0), where a
    field is worth what `field`'s finish makes of its own selections' value, an inline
    fragment its selections' value in the scope `inline` gives, and a spread `spread(name)`.
    """
    stack: list[_Frame[S]] = [_Frame(iter(selection_set.selections), scope, same)]
    while True:
        frame = stack[-1]
        selection = next(frame.selections, None)
        if selection is None:
            stack.pop()
            value = frame.finish(frame.value)
            if not stack:
                return value
            stack[-1].value = combine(stack[-1].value, value)
        elif isinstance(selection, FieldNode):
            step = field(selection, frame.scope)
            if step is None:
                frame.value = combine(frame.value, 0)
            elif selection.selection_set is None:
                frame.value = combine(frame.value, step[1](0))
            else:
                selections = iter(selection.selection_set.selections)
                stack.append(_Frame(selections, step[0], step[1]))
        elif isinstance(selection, InlineFragmentNode):
            inner = inline(selection, frame.scope)
            stack.append(_Frame(iter(selection.selection_set.selections), inner, same))
        elif isinstance(selection, FragmentSpreadNode):
            frame.value = combine(frame.value, spread(selection.name.value))


# The usual steps of a fold.


def same(value: int) -> int:
    return value


def plus_one(value: int) -> int:
    return value + 1


def counted(node: FieldNode, scope: None) -> FieldStep[None]:
    """A field worth one more than its selections."""
    return None, plus_one


def keep(node: InlineFragmentNode, scope: S) -> S:
    """An inline fragment's selections, in its parent's scope."""
    return scope


def fragment_values(
    document: DocumentNode, measure: Callable[[FragmentDefinitionNode, Callable[[str], int]], int]
) -> Callable[[str], int]:
    """Each fragment's value, measured once, a fragment's spreads read from those before
    it (`measure(fragment, spread)`); unknown fragments and cycles are worth 0."""
    fragments = fragments_of(document)
    ordered = fragment_order(fragments)
    values: dict[str, int] = {}

    def spread(name: str) -> int:
        return values.get(name, 0)

    for name in ordered.order:
        values[name] = 0 if name in ordered.cyclic else measure(fragments[name], spread)
    return spread
