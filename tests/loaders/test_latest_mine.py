"""The latest-mine rule reads each expense's `last_mine` before decoding it: the items of older
mines are never decoded, and the answer is the one the decoded items give, whatever the
instant's spelling (SPEC: readers accept fractional seconds and offsets). From the coherent
cache, where each item's row is built once and kept, the rule filters the rows instead, and
answers the same."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from loaders.answers import Later
from loaders.cache import CacheReader, CoherentCache
from loaders.codec import Item, WireItem, from_wire
from loaders.collections import Collections
from loaders.dynamodb import Dynamo
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.rows.mine import ExpenseRow
from loaders.tables import TableNames
from loaders.user_reads import UserReads
from tests.conftest import NOW, CallCounter, put_wire_items
from tests.loaders.cache.test_racing_reads import whole_feed_cache

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

LATEST, OLDER = "2026-12-01T06:00:00Z", "2026-11-20T06:00:00Z"
#: Each expense's `last_mine` as written (None: absent), by its merchant.
LAST_MINES: dict[str, dict[str, Any] | None] = {
    "m-latest": {"S": LATEST},
    "m-offset": {"S": "2026-12-01T07:00:00+01:00"},
    "m-nanoseconds": {"S": "2026-12-01T06:00:00.000000000Z"},
    "m-older": {"S": OLDER},
    "m-older-offset": {"S": "2026-11-20T01:00:00-05:00"},
    "m-null": {"NULL": True},
    "m-empty": {"S": ""},
    "m-absent": None,
}
CURRENT = ["m-latest", "m-nanoseconds", "m-offset"]


def _expense(merchant: str, last_mine: dict[str, Any] | None, due: str) -> WireItem:
    item: WireItem = {
        "PK": {"S": "USERS#u-1"},
        "SK": {"S": f"RECURRING#{(last_mine or {}).get('S', '')}#MERCHANT#{merchant}#monthly#1"},
        "type": {"S": "recurring"},
        "merchant_uuid": {"S": merchant},
        "merchant_name": {"S": merchant.upper()},
        "frequency": {"S": "monthly"},
        "amount": {"N": "1"},
        "due_date": {"S": due},
    }
    if last_mine is not None:
        item["last_mine"] = last_mine
    return item


async def _current(
    dynamo: Dynamo, *, collected: bool, cache: CoherentCache | None = None
) -> list[ExpenseRow]:
    collections = Collections()
    reader = CacheReader(cache, NOW) if cache is not None else None
    points = PointReadLoader(dynamo, NOW, collections, cache=reader)
    reads = UserReads(points, QueryLoader(dynamo, NOW, collections, cache=reader), NOW)
    if collected:
        reads.collect_user_partition("u-1")
    answer = reads.recurring_expenses("u-1")
    return await answer if isinstance(answer, Later) else answer


async def _put_mines_and_expenses(dynamodb: DynamoDBClient, tables: TableNames) -> None:
    mines = [
        {"PK": {"S": "MINE#u-1"}, "SK": {"S": f"TIME#{at}"}, "mined_at": {"S": at}}
        for at in (OLDER, LATEST)
    ]
    expenses = [
        _expense(merchant, last_mine, f"2026-12-{n + 10}")
        for n, (merchant, last_mine) in enumerate(reversed(LAST_MINES.items()))
    ]
    await put_wire_items(dynamodb, tables.pave, mines + expenses)


async def test_the_expenses_of_older_mines_are_never_decoded(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _put_mines_and_expenses(dynamodb, tables)
    decoded: list[str] = []

    def counted(item: WireItem) -> Item:
        if "merchant_uuid" in item:  # an expense (the mine is handed over undecoded too)
            decoded.append(item["merchant_uuid"]["S"])
        return from_wire(item)

    monkeypatch.setattr("loaders.cache.items.from_wire", counted)
    rows = await _current(dynamo, collected=True)
    assert sorted(decoded) == CURRENT
    # A Query of the expenses alone (no partition read whole) hands them over undecoded too,
    # and gives the same rows.
    decoded.clear()
    assert rows == await _current(dynamo, collected=False)
    assert sorted(decoded) == CURRENT
    assert [row.merchant_key for row in rows] == ["m-nanoseconds", "m-offset", "m-latest"]


@pytest.mark.parametrize("collected", [True, False], ids=["partition read whole", "one Query"])
async def test_a_warm_read_filters_the_kept_rows_and_answers_the_same(
    dynamodb: DynamoDBClient,
    tables: TableNames,
    dynamo: Dynamo,
    dynamodb_calls: CallCounter,
    collected: bool,
) -> None:
    await _put_mines_and_expenses(dynamodb, tables)
    uncached = await _current(dynamo, collected=collected)
    cache = whole_feed_cache()
    assert await _current(dynamo, collected=collected, cache=cache) == uncached
    dynamodb_calls.reset()
    warm = await _current(dynamo, collected=collected, cache=cache)
    assert dynamodb_calls.total == 0
    assert warm == uncached
    assert [row.merchant_key for row in warm] == ["m-nanoseconds", "m-offset", "m-latest"]
    # The rows are the kept ones: a third request gets the same objects.
    again = await _current(dynamo, collected=collected, cache=cache)
    assert all(kept is row for kept, row in zip(again, warm, strict=True))
