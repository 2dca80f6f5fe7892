"""The feeder's conditional write: recordLastPage (`last_page`), so that a retried or late
message never lowers a page (markInsightsRefresh's `pave_label` is a plain `put_written`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from loaders.codec import epoch_seconds
from loaders.dynamodb import Dynamo
from loaders.rows.feeder import LAST_PAGE, LastPageRow
from loaders.transactions import Writes
from loaders.writers.common import read_consistent

__all__ = ["LAST_PAGE_CONDITION", "RecordedLastPage", "record_last_page"]

# A later write may replace the stored row only when it raises the page, or when the stored
# row has expired (DynamoDB deletes those lazily; for every reader they are gone already).
LAST_PAGE_CONDITION = (
    "attribute_not_exists(#pk) OR attribute_not_exists(#page) OR #page < :page OR #ttl <= :now"
)


@dataclass(frozen=True, slots=True)
class RecordedLastPage:
    row: LastPageRow
    #: False when the stored page was already this high: nothing was written.
    written: bool


async def record_last_page(
    dynamo: Dynamo, writes: Writes, values: Mapping[str, Any], now: datetime
) -> RecordedLastPage:
    """Store the page unless one at least as high is stored; answer with the stored row.

    The first run writes under the condition without reading; a run after the condition
    failed (`writes.attempt`) reads the stored row and answers with it when it is as high."""
    row = LastPageRow.written(values, now)
    page = row.page
    assert page is not None  # the input gives it
    if writes.attempt:
        stored = await read_consistent(dynamo, row.item_key(), now)
        # Absent (expired or deleted since) or lower: write after all, as the condition says.
        kept = LastPageRow.from_item(stored) if stored is not None else None
        if kept is not None and kept.page is not None and kept.page >= page:
            return RecordedLastPage(kept, written=False)
    writes.put(
        LAST_PAGE.table,
        row.to_item(),
        condition=LAST_PAGE_CONDITION,
        names={"#pk": "PK", "#page": "page", "#ttl": "ttl"},
        values={":page": row.page, ":now": epoch_seconds(now)},
    )
    return RecordedLastPage(row, written=True)
