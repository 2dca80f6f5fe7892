"""The feeder's two writes: markInsightsRefresh (`pave_label`) and recordLastPage
(`last_page`, conditional so that a retried or late message never lowers a page)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from loaders import validation
from loaders.codec import epoch_seconds
from loaders.dynamodb import Dynamo
from loaders.rows.feeder import LAST_PAGE, PAVE_LABEL, REFRESH_INSIGHTS, LastPageRow, PaveLabelRow
from loaders.transactions import Writes
from loaders.writers.common import read_consistent

__all__ = [
    "LAST_PAGE_CONDITION",
    "MAX_PAGE",
    "LastPageCommand",
    "RecordedLastPage",
    "last_page_row",
    "mark_insights_refresh",
    "record_last_page",
]

MAX_PAGE = 1_000_000_000
# A later write may replace the stored row only when it raises the page, or when the stored
# row has expired (DynamoDB deletes those lazily; for every reader they are gone already).
LAST_PAGE_CONDITION = (
    "attribute_not_exists(#pk) OR attribute_not_exists(#page) OR #page < :page OR #ttl <= :now"
)


def mark_insights_refresh(writes: Writes, user_id: str, now: datetime) -> PaveLabelRow:
    row = PaveLabelRow(
        user_id=validation.identifier("userId", user_id), label=REFRESH_INSIGHTS, updated_date=now
    )
    writes.put(PAVE_LABEL.table, row.to_item())
    return row


@dataclass(frozen=True, slots=True)
class LastPageCommand:
    user_id: str
    pave_request_id: str
    page: int


@dataclass(frozen=True, slots=True)
class RecordedLastPage:
    row: LastPageRow
    #: False when the stored page was already this high: nothing was written.
    written: bool


def last_page_row(command: LastPageCommand, now: datetime) -> LastPageRow:
    return LastPageRow(
        user_id=validation.identifier("userId", command.user_id),
        pave_request_id=validation.identifier("paveRequestId", command.pave_request_id),
        page=validation.whole_number("page", command.page, minimum=0, maximum=MAX_PAGE),
        updated_date=now,
        ttl=LAST_PAGE.expires(now),
    )


async def record_last_page(
    dynamo: Dynamo, writes: Writes, command: LastPageCommand, now: datetime
) -> RecordedLastPage:
    """Store the page unless one at least as high is stored; answer with the stored row.

    The first run writes under the condition without reading; a run after the condition
    failed (`writes.attempt`) reads the stored row and answers with it when it is as high."""
    row = last_page_row(command, now)
    page = row.page
    assert page is not None  # last_page_row checked it
    if writes.attempt:
        stored = await read_consistent(
            dynamo, LAST_PAGE.key(user_id=row.user_id, pave_request_id=row.pave_request_id), now
        )
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
