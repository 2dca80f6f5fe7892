"""Refuse documents whose shape would make validation slow: too many selections, too deep
a chain of fragments, too many overlapping fields (schema/extensions/document_shape.py).

Each reads the whole document, whichever operation runs: validation reads it all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schema.extensions.query_limit import QueryLimit

if TYPE_CHECKING:
    from schema.prepared import PreparedOperation


class SelectionLimit(QueryLimit):
    """Selections (the budget charges a refusal by them too)."""

    limit_name = "selections"

    def figure(self, operation: PreparedOperation) -> int:
        return operation.selections


class FragmentDepthLimit(QueryLimit):
    limit_name = "fragment depth"

    def figure(self, operation: PreparedOperation) -> int:
        return operation.fragment_depth


class OverlapLimit(QueryLimit):
    limit_name = "overlapping field pairs"

    def figure(self, operation: PreparedOperation) -> int:
        # Past the limit the figure is not needed exactly: the walk stops there.
        return operation.overlaps(stop_above=self.maximum)
