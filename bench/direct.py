"""The floor: the same reads as the gateway's plans, issued straight through one aioboto3
client (no GraphQL, no rows), all at once under the same in-flight cap: sent as the
gateway sends them, by the lean client (loaders/wire/) when one is given, else through
botocore (its parsing). The items come back as the calls returned them, undecoded
(bench/answered.py answers with them)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from loaders import entities as e
from loaders.call_log import consumed_capacity_units
from loaders.codec import WireItem, months_back
from loaders.keys import ItemKey, QueryKey
from loaders.tables import TableNames
from loaders.wire.client import OPERATIONS, LeanClient

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

COLLECTION = "collection"
PREFIX = "prefix"
#: The full User's arguments, as the bench's selection leaves them: `savingsMonths`'
#: `months` and the `limit` of the scores and detection runs.
MONTHS = 3
LIMIT = 10


@dataclass
class Reads:
    """What the calls of one read of users cost and returned."""

    calls: int = 0
    read_capacity_units: float = 0.0
    #: Each Query's items and each table's point-read items (by table name), in wire form.
    queried: dict[QueryKey, list[WireItem]] = field(default_factory=dict)
    found: dict[str, list[WireItem]] = field(default_factory=dict)


def plan_of(user_id: str, today: date, plan: str) -> tuple[list[QueryKey], list[ItemKey]]:
    """The Queries and point keys of one full User under `plan`."""
    user = {"user_id": user_id}
    queries = [
        e.MINE.query(newest_first=True, limit=1, user_id=user_id),
        e.INCOME_DETECTION_RUN.query(newest_first=True, limit=LIMIT, user_id=user_id),
    ]
    points = [e.PAYDAY.key(**user), e.PAVE_LABEL.key(**user), e.BALANCE_SETTINGS.key(**user)]
    if plan == COLLECTION:
        table, pk = e.USERS.partition(**user)
        queries.append(QueryKey(table, pk))
    else:
        queries += [
            e.RECURRING_EXPENSE.query(user_id=user_id),
            e.RITUAL_EXPENSE.query(user_id=user_id),
            e.CASH_ADVANCE_SCORE.query(newest_first=True, limit=LIMIT, user_id=user_id),
            e.LAST_PAGE.query(user_id=user_id),
        ]
        points += [
            e.INCOME_VERIFICATION.key(**user),
            e.ALERT.key(**user),
            e.INCOME.key(**user),
            *(e.SAVINGS_MONTH.key(month=m, **user) for m in months_back(today, MONTHS)),
        ]
    return queries, points


async def read_users(
    client: DynamoDBClient,
    tables: TableNames,
    user_ids: list[str],
    today: date,
    plan: str,
    slots: asyncio.Semaphore,
    *,
    lean: LeanClient | None = None,
) -> Reads:
    reads = Reads()
    queries: list[QueryKey] = []
    points: list[ItemKey] = []
    for user_id in dict.fromkeys(user_ids):
        user_queries, user_points = plan_of(user_id, today, plan)
        queries += user_queries
        points += user_points

    async def call(operation: str, **params: Any) -> dict[str, Any]:
        async with slots:
            response: dict[str, Any]
            if lean is not None and operation in OPERATIONS:
                response = await lean.send(operation, params, [0])
            else:
                response = await getattr(client, operation)(**params)
        reads.calls += 1
        reads.read_capacity_units += consumed_capacity_units(response)
        return response

    async def query(key: QueryKey) -> list[dict[str, Any]]:
        partition, sort = key.table.key_names
        params: dict[str, Any] = {
            "TableName": tables.name(key.table),
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": partition},
            "ExpressionAttributeValues": {":pk": {"S": key.pk}},
            "ScanIndexForward": not key.newest_first,
            "ReturnConsumedCapacity": "TOTAL",
        }
        if key.sk_prefix and sort is not None:
            params["KeyConditionExpression"] += " AND begins_with(#sk, :prefix)"
            params["ExpressionAttributeNames"]["#sk"] = sort
            params["ExpressionAttributeValues"][":prefix"] = {"S": key.sk_prefix}
        if key.limit is not None:
            params["Limit"] = key.limit
        items: list[dict[str, Any]] = []
        while True:
            response = await call("query", **params)
            items += response.get("Items", [])
            last = response.get("LastEvaluatedKey")
            if not last or key.limit is not None:
                reads.queried[key] = items
                return items
            params["ExclusiveStartKey"] = last

    async def batch_get(page: list[ItemKey]) -> None:
        request: dict[str, Any] = {}
        for key in page:
            request.setdefault(tables.name(key.table), {"Keys": []})["Keys"].append(
                key.attributes()
            )
        while request:
            response = await call(
                "batch_get_item", RequestItems=request, ReturnConsumedCapacity="TOTAL"
            )
            for table, items in response.get("Responses", {}).items():
                reads.found.setdefault(table, []).extend(items)
            request = response.get("UnprocessedKeys") or {}

    pages = [points[start : start + 100] for start in range(0, len(points), 100)]
    await asyncio.gather(*(query(q) for q in queries), *(batch_get(page) for page in pages))
    return reads
