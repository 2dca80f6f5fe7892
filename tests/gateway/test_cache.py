"""The coherent cache end to end: the app with INSIGHT_CACHE on, over moto's server, its
change feed fed by hand (positions and changes, as the stream readers publish them), the
DynamoDB calls counted by `extensions.cost`."""

from __future__ import annotations

import time
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from types_aiobotocore_dynamodb import DynamoDBClient

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.entities import LAST_PAGE
from loaders.live.changes import Change, ShardPosition
from loaders.rows.income import IncomeRow
from loaders.tables import Table, TableNames, create_tables
from schema.root import build_schema
from support.every_field import every_field
from support.fixed_clock import FixedClock
from support.metrics_text import value
from support.seed import seed_users
from tests.change_recorder import Recorder
from tests.conftest import unique_table_names
from tests.gateway.cache_client import CachedGateway, cached_gateway

FULL_USER = every_field(build_schema()._schema, "User")
ONE_USER = f"query($id: ID!) {{ user(id: $id) {FULL_USER} }}"
SELECTIONS = {
    # Four prefixes of USERS#<id>: the access plan reads the partition whole.
    "the whole partition": ONE_USER,
    "a prefix and points": """query($id: ID!) { user(id: $id) {
        recurringExpenses { merchantUuid amount } alert { alertSent } income { amount }
        savingsMonths(months: 2) { month totalAvailable } } }""",
    "other partitions and limits": """query($id: ID!) { user(id: $id) {
        payday { predictionDate } latestMine { minedAt } lowBalanceAlert
        incomeDetectionRuns(limit: 2) { runDate } cashAdvanceScores(limit: 3) { score }
        paveLabel { label } } }""",
}
INCOME = "query($id: ID!) { user(id: $id) { income { amount } } }"


@pytest.fixture
async def tables(dynamodb: DynamoDBClient) -> TableNames:
    """Tables without streams: the stream readers find nothing to read, and the tests feed
    the change feed by hand (positions and changes), as the readers would."""
    names = unique_table_names()
    await create_tables(dynamodb, names, streams=False)
    return names


@pytest.fixture
async def seeded(dynamo: Dynamo, settings: Settings, clock: FixedClock) -> Dynamo:
    await seed_users(dynamo, ["u-1", "u-2"], clock.now(), settings)
    return dynamo


async def outside_income(dynamo: Dynamo, clock: FixedClock, amount: str) -> None:
    """A write straight to DynamoDB, as another service makes one."""
    now = clock.now()
    row = IncomeRow("u-1", "ACME PAYROLL", Decimal(amount), "biweekly", now.date(), now)
    await dynamo.put(Table.PAVE, row.to_item())


@pytest.mark.parametrize("query", list(SELECTIONS.values()), ids=list(SELECTIONS))
async def test_a_repeated_read_makes_no_call_and_answers_the_same(
    seeded: Dynamo, settings: Settings, clock: FixedClock, query: str
) -> None:
    async with cached_gateway(settings, clock) as gateway:
        first, cold = await gateway.read(query, {"id": "u-1"})
        again, warm = await gateway.read(query, {"id": "u-1"})
        metrics = await gateway.metrics()
    assert cold["dynamodbCalls"] > 0
    assert cold["cachedReads"] == 0
    assert warm["dynamodbCalls"] == 0
    assert warm["cachedReads"] > 0
    assert again == first
    assert value(metrics, "gateway_cache_hits_total") == warm["cachedReads"]
    assert value(metrics, "gateway_cache_misses_total") > 0
    assert value(metrics, "gateway_cache_bytes") > 0


async def test_a_change_on_the_feed_drops_the_partition(
    seeded: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    async with cached_gateway(settings, clock) as gateway:
        before, _ = await gateway.read(ONE_USER, {"id": "u-1"})
        await outside_income(seeded, clock, "2000.00")
        # Until the feed delivers the change, the cache answers (within the feed's lag).
        stale, cost = await gateway.read(INCOME, {"id": "u-1"})
        assert cost["dynamodbCalls"] == 0
        assert stale["user"]["income"] == {"amount": before["user"]["income"]["amount"]}
        await gateway.changed(Table.PAVE, "USERS#u-1")
        fresh, cost = await gateway.read(INCOME, {"id": "u-1"})
        assert cost["dynamodbCalls"] > 0
        assert fresh["user"]["income"] == {"amount": "2000.00"}
        # Only the changed partition was read again; then it is cached again.
        _, whole = await gateway.read(ONE_USER, {"id": "u-1"})
        assert whole["dynamodbCalls"] == 1  # the USERS#u-1 Query
        _, again = await gateway.read(ONE_USER, {"id": "u-1"})
        assert again["dynamodbCalls"] == 0


async def test_a_mutation_shows_at_once_on_its_replica_and_is_published(
    seeded: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    query = "query($id: ID!) { user(id: $id) { incomeVerification { txnId } alert { alertSent } } }"
    mutation = """mutation($input: SetIncomeVerificationInput!) {
        setIncomeVerification(input: $input) { txnId } }"""
    verification = {
        "userId": "u-1",
        "txnName": "ACME PAYROLL",
        "txnId": "txn-new",
        "amountInCents": 254_321,
        "payFrequency": "biweekly",
        "institutionId": "ins-3",
        "verificationStatus": "approved",
        "isValid": True,
        "notes": [],
        "verificationSource": "mx",
    }
    async with cached_gateway(settings, clock) as gateway:
        heard = Recorder()
        gateway.feed.listen(heard)
        await gateway.read(query, {"id": "u-1"})
        _, warm = await gateway.read(query, {"id": "u-1"})
        assert warm["dynamodbCalls"] == 0
        await gateway.write(mutation, {"input": verification})
        after, cost = await gateway.read(query, {"id": "u-1"})
    assert after["user"]["incomeVerification"] == {"txnId": "txn-new"}
    assert cost["dynamodbCalls"] > 0
    assert heard.changes_heard() == [Change(Table.PAVE, "USERS#u-1")]


async def test_an_item_past_its_ttl_and_a_payday_of_another_day_never_show(
    seeded: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    # u-1's oldest income detection run expires 22 hours from now; its payday is today's.
    runs = "runs: incomeDetectionRuns(limit: 10) { runDate } payday { predictionDate }"
    whole = f"query($id: ID!) {{ user(id: $id) {{ {runs} {FULL_USER[1:-1]} }} }}"
    alone = f"query($id: ID!) {{ user(id: $id) {{ {runs} }} }}"
    async with cached_gateway(settings, clock) as gateway:
        for query in (whole, alone):
            today, _ = await gateway.read(query, {"id": "u-1"})
            _, warm = await gateway.read(query, {"id": "u-1"})
            assert warm["dynamodbCalls"] == 0
            assert len(today["user"]["runs"]) == 7
            assert today["user"]["payday"] is not None
        clock.advance(timedelta(hours=23))
        for query in (whole, alone):
            later, _ = await gateway.read(query, {"id": "u-1"})
            assert len(later["user"]["runs"]) == 6
            assert later["user"]["payday"] is None


@pytest.mark.parametrize("reason", ["lagging", "disconnected", "no_position"])
async def test_without_a_whole_feed_reads_go_to_dynamodb_then_caching_resumes_empty(
    seeded: Dynamo, settings: Settings, clock: FixedClock, reason: str
) -> None:
    # no_position: a gateway that has heard no position of a streamed table yet.
    async with cached_gateway(settings, clock, positions=reason != "no_position") as gateway:
        await gateway.read(INCOME, {"id": "u-1"})
        await break_feed(gateway, reason)
        await outside_income(seeded, clock, "2000.00")
        for _ in range(2):
            shown, cost = await gateway.read(INCOME, {"id": "u-1"})
            assert shown["user"]["income"] == {"amount": "2000.00"}
            assert cost["dynamodbCalls"] == 1
            assert cost["cachedReads"] == 0
        metrics = await gateway.metrics()
        assert value(metrics, "gateway_cache_bypasses_total", reason=reason) >= 2
        assert gateway.cache.store.bytes == 0
        await mend_feed(gateway, reason)
        # Whole again: it starts empty (the write made meanwhile is read), then caches.
        await outside_income(seeded, clock, "2100.00")
        shown, cost = await gateway.read(INCOME, {"id": "u-1"})
        assert (shown["user"]["income"], cost["dynamodbCalls"]) == ({"amount": "2100.00"}, 1)
        shown, cost = await gateway.read(INCOME, {"id": "u-1"})
        assert (shown["user"]["income"], cost["dynamodbCalls"]) == ({"amount": "2100.00"}, 0)


async def break_feed(gateway: CachedGateway, reason: str) -> None:
    if reason == "lagging":
        # A shard whose reader is behind (a position an hour old).
        await gateway.feed.publish_position(
            ShardPosition(Table.PAVE, "shard-behind", time.time() - 3600)
        )
    elif reason == "disconnected":
        gateway.cache.disconnected()  # as the Redis feed tells its listeners


async def mend_feed(gateway: CachedGateway, reason: str) -> None:
    if reason == "lagging":
        await gateway.feed.publish_position(ShardPosition(Table.PAVE, "shard-behind", time.time()))
    elif reason == "disconnected":
        gateway.cache.resync("reconnected")
    else:
        await gateway.positions()


async def test_the_bound_holds_under_a_working_set_ten_times_larger(
    dynamo: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    users = [f"w-{n:02d}" for n in range(10)]
    await seed_users(dynamo, users, clock.now(), settings)
    expected: dict[str, Any] = {}
    async with cached_gateway(settings, clock) as roomy:
        for user in users:
            expected[user], _ = await roomy.read(ONE_USER, {"id": user})
        # What a user takes, measured as the cache measures it.
        per_user = roomy.cache.store.bytes / len(users)
    bound = int(1.05 * per_user)  # one user's partitions: the working set is ten times it
    async with cached_gateway(settings, clock, cache_max_bytes=bound) as tight:
        for _round in range(2):
            for user in users:
                answer, _ = await tight.read(ONE_USER, {"id": user})
                assert answer == expected[user]
                assert tight.cache.store.bytes <= bound
        # The last user fits: read again, from the cache.
        answer, cost = await tight.read(ONE_USER, {"id": users[-1]})
        assert (answer, cost["dynamodbCalls"]) == (expected[users[-1]], 0)
        metrics = await tight.metrics()
    evictions = value(metrics, "gateway_cache_evictions_total")
    assert evictions >= 2 * len(users) - 1
    assert 0 < value(metrics, "gateway_cache_bytes") <= bound


async def test_two_principals_over_one_cached_partition_see_what_their_rules_show(
    seeded: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    both = '{ users(ids: ["u-1", "u-2"]) { id income { amount } alert { alertSent } } }'
    async with cached_gateway(settings, clock) as gateway:
        dashboard, _ = await gateway.read(both, {})
        _, warm = await gateway.read(both, {})
        assert warm["dynamodbCalls"] == 0
        end_user = gateway.token("u-1", ())
        answer = await gateway.client.post(
            "/graphql",
            json={"query": both},
            headers={"Authorization": f"Bearer {end_user}", "X-Insight-Cost": "1"},
        )
        viewer, _ = await gateway.read("{ viewer { id income { amount } } }", {}, end_user)
    body = answer.json()
    # u-1 sees their own rows (from the cache), never u-2's, though u-2's are cached too.
    assert body["data"]["users"] == [dashboard["users"][0], None]
    assert [error["extensions"]["code"] for error in body["errors"]] == ["FORBIDDEN"]
    assert body["extensions"]["cost"]["dynamodbCalls"] == 0
    assert viewer["viewer"] == {"id": "u-1", "income": dashboard["users"][0]["income"]}


async def test_a_failed_conditional_write_drops_its_partition(
    seeded: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    pages = "query($id: ID!) { user(id: $id) { lastPages { paveRequestId page } } }"
    mutation = """mutation($input: RecordLastPageInput!) {
        recordLastPage(input: $input) { page } }"""
    async with cached_gateway(settings, clock) as gateway:
        before, _ = await gateway.read(pages, {"id": "u-1"})
        request_id = before["user"]["lastPages"][0]["paveRequestId"]
        page = before["user"]["lastPages"][0]["page"]
        # Another service records a later page; the feed has not delivered it yet.
        stored = dict(await outside_last_page(seeded, "u-1", request_id, page + 5))
        # A lower page: the condition fails, the stored row is answered, nothing written.
        answered = await gateway.write(
            mutation, {"input": {"userId": "u-1", "paveRequestId": request_id, "page": page + 1}}
        )
        assert answered == {"recordLastPage": {"page": stored["page"]}}
        after, cost = await gateway.read(pages, {"id": "u-1"})
    assert cost["dynamodbCalls"] > 0
    assert {"paveRequestId": request_id, "page": page + 5} in after["user"]["lastPages"]


async def outside_last_page(dynamo: Dynamo, user_id: str, request_id: str, page: int) -> Any:
    key = LAST_PAGE.key(user_id=user_id, pave_request_id=request_id)
    answer = await dynamo.call(
        "update_item",
        TableName=dynamo.tables.name(key.table),
        Key=key.attributes(),
        UpdateExpression="SET page = :page",
        ExpressionAttributeValues={":page": {"N": str(page)}},
        ReturnValues="ALL_NEW",
    )
    return {"page": int(answer["Attributes"]["page"]["N"])}
