"""The shape of a whole document, which bounds what graphql-core's validation does with it.

Validation reads every definition of a document (operations not executed and fragments
never spread included), and one of its rules, OverlappingFieldsCanBeMerged, compares
every two fields that answer under one response name at one place: quadratic in them,
about 4 µs a pair, so 495 sibling `viewer { __typename }` (under every other limit) held
the event loop for half a second. Three figures bound it, each measured here in time
linear in the text (iteratively, schema/extensions/walk.py), before validation runs:

- selections: fields, inline fragments and fragment spreads of every operation (and of
  fragments spread nowhere), a spread counted with its fragment's selections (the work of
  a walk that follows fragments);
- fragment depth: the longest chain of fragments spread inside fragments (validation
  follows it by recursion, and aborts past about 225);
- overlaps: the pairs of selections the overlap rule compares: for each place (a response
  path, with inline fragments and fragments merged in), n fields under one response name
  make n(n-1)/2 pairs.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import add

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)

from schema.extensions.walk import (
    counted,
    fold,
    fragment_order,
    fragment_values,
    fragments_of,
    keep,
    spreads_in,
)


def _roots(document: DocumentNode) -> list[SelectionSetNode]:
    """Where validation's walks start: every operation (executed or not), and every
    fragment that no definition spreads (or only a cycle does), which validation reads all
    the same. A fragment spread somewhere is counted where it is spread."""
    fragments = fragments_of(document)
    ordered = fragment_order(fragments)
    operations = [
        definition.selection_set
        for definition in document.definitions
        if isinstance(definition, OperationDefinitionNode)
    ]
    spread = {name for names in ordered.spreads.values() for name in names}
    spread.update(name for operation in operations for name in spreads_in(operation))
    return operations + [
        fragment.selection_set
        for name, fragment in fragments.items()
        if name not in spread or name in ordered.cyclic
    ]


def selection_count(document: DocumentNode) -> int:
    """Selections of every definition, each fragment spread counted with its fragment's."""

    def count(selection_set: SelectionSetNode, fragment: Callable[[str], int]) -> int:
        return fold(
            selection_set,
            None,
            combine=add,
            field=counted,
            # The inline fragment itself is a selection; its selections are counted by the fold.
            inline=keep,
            spread=lambda name: 1 + fragment(name),
        )

    fragment_count = fragment_values(document, lambda fragment, s: count(fragment.selection_set, s))
    return sum(count(root, fragment_count) for root in _roots(document))


def fragment_depth(document: DocumentNode) -> int:
    """The longest chain of fragments spread inside fragments (a spread alone is 1)."""
    ordered = fragment_order(fragments_of(document))
    depths: dict[str, int] = {}
    for name in ordered.order:
        inner = (depths.get(spread, 0) for spread in ordered.spreads[name])
        depths[name] = 0 if name in ordered.cyclic else 1 + max(inner, default=0)
    return max(depths.values(), default=0)


def overlap_count(document: DocumentNode, stop_above: int | None = None) -> int:
    """Pairs of fields under one response name at one place, as the overlap rule compares
    them; the walk ends as soon as the count is over `stop_above` (that count is returned).

    A place is the selections merged under one response path: a field's own selections,
    with its inline fragments and its fragments' selections (each fragment once per place,
    as the rule collects them; a fragment on a cycle is not followed), and those of every
    field answering under the same name beside it. Each place is flattened once, so the
    walk visits each expanded selection at most once: no more than `selection_count`.
    """
    fragments = fragments_of(document)
    cyclic = fragment_order(fragments).cyclic
    pairs = 0
    places: list[list[SelectionSetNode]] = [[root] for root in _roots(document)]
    while places:
        pending = places.pop()
        followed: set[str] = set()
        by_name: dict[str, list[SelectionSetNode | None]] = {}
        while pending:
            for selection in pending.pop().selections:
                if isinstance(selection, FieldNode):
                    name = (selection.alias or selection.name).value
                    by_name.setdefault(name, []).append(selection.selection_set)
                elif isinstance(selection, InlineFragmentNode):
                    pending.append(selection.selection_set)
                elif isinstance(selection, FragmentSpreadNode):
                    spread = selection.name.value
                    fragment = fragments.get(spread)
                    if fragment is not None and spread not in followed and spread not in cyclic:
                        followed.add(spread)
                        pending.append(fragment.selection_set)
        for fields in by_name.values():
            pairs += len(fields) * (len(fields) - 1) // 2
            inner = [selections for selections in fields if selections is not None]
            if inner:
                places.append(inner)
        if stop_above is not None and pairs > stop_above:
            break
    return pairs
