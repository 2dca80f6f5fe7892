"""The feeder's two writes: markInsightsRefresh (`pave_label`) and recordLastPage
(`last_page`, conditional so that a retried or late message never lowers a page)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from loaders import keys, ttl, validation
from loaders.codec import epoch_seconds
from loaders.dynamodb import ConditionFailed, Dynamo
from loaders.rows.feeder import REFRESH_INSIGHTS, LastPageRow, PaveLabelRow
from loaders.tables import Table
from loaders.writers.common import read_consistent

MAX_PAGE = 1_000_000_000
# A later write may replace the stored row only when it raises the page, or when the stored
# row has expired (DynamoDB deletes those lazily; for every reader they are gone already).
LAST_PAGE_CONDITION = (
    "attribute_not_exists(#pk) OR attribute_not_exists(#page) OR #page < :page OR #ttl <= :now"
)
# Bounded: each lost race means a newer page was stored, and the answer is then that row.
_MAX_ATTEMPTS = 3


async def mark_insights_refresh(dynamo: Dynamo, user_id: str, now: datetime) -> PaveLabelRow:
    row = PaveLabelRow(
        user_id=validation.identifier("userId", user_id), label=REFRESH_INSIGHTS, updated_date=now
    )
    await dynamo.put(Table.PAVE, row.to_item())
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
        ttl=ttl.last_page(now),
    )


async def record_last_page(
    dynamo: Dynamo, command: LastPageCommand, now: datetime
) -> RecordedLastPage:
    """Store the page unless one at least as high is stored; answer with the stored row."""
    row = last_page_row(command, now)
    key = keys.last_page(row.user_id, row.pave_request_id)
    for _ in range(_MAX_ATTEMPTS):
        try:
            await dynamo.put(
                Table.PAVE,
                row.to_item(),
                condition=LAST_PAGE_CONDITION,
                names={"#pk": "PK", "#page": "page", "#ttl": "ttl"},
                values={":page": row.page, ":now": epoch_seconds(now)},
            )
            return RecordedLastPage(row, written=True)
        except ConditionFailed:
            stored = await read_consistent(dynamo, key, now)
            if stored is not None:
                return RecordedLastPage(LastPageRow.from_item(stored), written=False)
            # Gone between the write and the read (expired or deleted): try again.
    raise ConditionFailed(f"{key.sk}: the stored page kept changing")
