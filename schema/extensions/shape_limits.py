"""Refuse documents whose shape would make validation slow: too many selections, too deep
a chain of fragments, too many overlapping fields (schema/extensions/document_shape.py).

Each reads the whole document, whichever operation runs: validation reads it all.
"""

from __future__ import annotations

from collections.abc import Hashable

from graphql import DocumentNode

from schema.extensions.cost_limit import CostMeasure
from schema.extensions.document_shape import fragment_depth, overlap_count
from schema.extensions.query_limit import QueryLimit


class _WholeDocument(QueryLimit):
    def memo_key(self) -> Hashable:
        return type(self).__name__


class SelectionLimit(_WholeDocument):
    """Selections, as `CostMeasure.size` counts them (the budget charges a refusal by it)."""

    limit_name = "selections"

    def __init__(self, maximum: int, cost: CostMeasure) -> None:
        self.cost = cost
        super().__init__(maximum)

    def measure(self, document: DocumentNode) -> int:
        return self.cost.size(document)


class FragmentDepthLimit(_WholeDocument):
    limit_name = "fragment depth"

    def measure(self, document: DocumentNode) -> int:
        return fragment_depth(document)


class OverlapLimit(_WholeDocument):
    limit_name = "overlapping field pairs"

    def measure(self, document: DocumentNode) -> int:
        # Past the limit the figure is not needed exactly: the walk stops there.
        return overlap_count(document, stop_above=self.maximum)
