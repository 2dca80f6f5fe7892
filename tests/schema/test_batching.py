"""The number of DynamoDB calls a wide read costs, under each access plan."""

from __future__ import annotations

import math

from tests.conftest import CallCounter
from tests.schema.conftest import Execute, data_of
from tests.schema.test_user_queries import EVERY_FIELD

#: EVERY_FIELD reads four prefixes of USERS#<id>, so the plan reads that partition whole:
#: per user one Query of it, the latest-mine and detection-runs Queries, and three point
#: keys outside it (payday, pave label, balance settings).
COLLECTION_QUERIES_PER_USER = 3
COLLECTION_POINT_KEYS_PER_USER = 3

#: One prefix of USERS#<id> and its points: the prefix plan, with the partition's point
#: keys in the shared BatchGetItem calls.
ONE_PREFIX = "incomeVerification { txnId } savingsMonths { month } alert { alertSent } "
ONE_PREFIX += "income { amount } lastPages { page } payday { nextDate }"
ONE_PREFIX_POINT_KEYS_PER_USER = 7  # verification, 3 months, alert, income, payday


def _queried(dynamodb_calls: CallCounter) -> list[tuple[str, str, str | None]]:
    return [
        (
            p["TableName"],
            p["ExpressionAttributeValues"][":pk"]["S"],
            p["ExpressionAttributeValues"].get(":prefix", {}).get("S"),
        )
        for name, p in dynamodb_calls.requests
        if name == "Query"
    ]


def _batch_sizes(dynamodb_calls: CallCounter) -> list[int]:
    return sorted(
        sum(len(table["Keys"]) for table in params["RequestItems"].values())
        for name, params in dynamodb_calls.requests
        if name == "BatchGetItem"
    )


async def test_fifty_users_every_field_read_each_partition_whole(
    execute: Execute, dynamodb_calls: CallCounter
) -> None:
    ids = [f"u-{i}" for i in range(50)]
    result = await execute(
        f"query($ids: [ID!]!) {{ users(ids: $ids) {{ {EVERY_FIELD} }} }}", {"ids": ids}
    )
    assert len(data_of(result)["users"]) == 50
    assert dynamodb_calls.calls["BatchGetItem"] == math.ceil(
        50 * COLLECTION_POINT_KEYS_PER_USER / 100
    )
    assert _batch_sizes(dynamodb_calls) == [50, 100]
    assert dynamodb_calls.calls["Query"] == 50 * COLLECTION_QUERIES_PER_USER
    queried = _queried(dynamodb_calls)
    assert len(set(queried)) == len(queried)
    # The USERS#<id> Query has no prefix: the whole partition.
    assert sum(1 for _, pk, prefix in queried if pk.startswith("USERS#") and not prefix) == 50
    assert not any(pk.startswith("USERS#") and prefix for _, pk, prefix in queried)
    point_keys = [
        key["PK"]["S"] if "PK" in key else key["user_id"]["S"]
        for name, params in dynamodb_calls.requests
        if name == "BatchGetItem"
        for table in params["RequestItems"].values()
        for key in table["Keys"]
    ]
    assert not any(pk.startswith("USERS#") for pk in point_keys)


async def test_one_prefix_keeps_the_prefix_plan_with_batched_points(
    execute: Execute, dynamodb_calls: CallCounter
) -> None:
    ids = [f"u-{i}" for i in range(50)]
    result = await execute(
        f"query($ids: [ID!]!) {{ users(ids: $ids) {{ {ONE_PREFIX} }} }}", {"ids": ids}
    )
    assert len(data_of(result)["users"]) == 50
    assert _batch_sizes(dynamodb_calls) == [50, 100, 100, 100]
    assert dynamodb_calls.calls["Query"] == 50
    assert {prefix for _, _, prefix in _queried(dynamodb_calls)} == {"LAST_PAGE#REQUEST_ID#"}


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


async def test_a_collected_partition_is_queried_once_across_root_fields(
    execute: Execute, dynamodb_calls: CallCounter
) -> None:
    result = await execute(
        '{ a: user(id: "u") { rituals { merchantId } savingsMonths(months: 12) { month } } '
        'b: users(ids: ["u", "v", "u"]) { recurringExpenses { merchantUuid } '
        "cashAdvanceScores(limit: 2) { score } alert { alertSent } income { amount } "
        "lastPages { page } } }"
    )
    data_of(result)
    queried = _queried(dynamodb_calls)
    assert sorted(q for q in queried if q[1].startswith("USERS#")) == [
        (queried[0][0], "USERS#u", None),
        (queried[0][0], "USERS#v", None),
    ]
    assert dynamodb_calls.calls == {"Query": 4}  # two partitions, two latest mines
