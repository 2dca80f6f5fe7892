"""The number of DynamoDB calls a wide read costs."""

from __future__ import annotations

import math

from tests.conftest import CallCounter
from tests.schema.conftest import Execute, data_of
from tests.schema.test_user_queries import EVERY_FIELD

#: Point keys per user for EVERY_FIELD: payday, verification, 3 savings months, alert,
#: income, pave label, balance settings.
POINT_KEYS_PER_USER = 9
#: Queries per user: latest mine, recurring, rituals, scores, detection runs, last pages.
QUERIES_PER_USER = 6


async def test_fifty_users_every_field_batches_point_reads_by_hundred(
    execute: Execute, dynamodb_calls: CallCounter
) -> None:
    ids = [f"u-{i}" for i in range(50)]
    result = await execute(
        f"query($ids: [ID!]!) {{ users(ids: $ids) {{ {EVERY_FIELD} }} }}", {"ids": ids}
    )
    assert len(data_of(result)["users"]) == 50
    distinct_point_keys = 50 * POINT_KEYS_PER_USER
    assert dynamodb_calls.calls["BatchGetItem"] == math.ceil(distinct_point_keys / 100)
    batch_sizes = sorted(
        sum(len(table["Keys"]) for table in params["RequestItems"].values())
        for name, params in dynamodb_calls.requests
        if name == "BatchGetItem"
    )
    assert batch_sizes == [50, 100, 100, 100, 100]
    # One Query per (table, partition, prefix): the latest-mine Query serves both
    # recurringExpenses and rituals and latestMine.
    assert dynamodb_calls.calls["Query"] == 50 * QUERIES_PER_USER
    queried = [
        (
            p["TableName"],
            p["ExpressionAttributeValues"][":pk"]["S"],
            p["ExpressionAttributeValues"].get(":prefix", {}).get("S"),
        )
        for name, p in dynamodb_calls.requests
        if name == "Query"
    ]
    assert len(set(queried)) == len(queried)


async def test_duplicate_users_and_fields_are_read_once(
    execute: Execute, dynamodb_calls: CallCounter
) -> None:
    result = await execute(
        '{ a: user(id: "u") { payday { nextDate } alert { alertSent } } '
        'b: users(ids: ["u", "u"]) { payday { nextDate } latestMine { minedAt } '
        "rituals { merchantId } } }"
    )
    data_of(result)
    assert dynamodb_calls.calls == {"BatchGetItem": 1, "Query": 2}
    [(_, params)] = [r for r in dynamodb_calls.requests if r[0] == "BatchGetItem"]
    [table] = params["RequestItems"].values()
    assert len(table["Keys"]) == 2
