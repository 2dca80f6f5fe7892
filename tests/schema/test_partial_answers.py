"""A dashboard of 20 users in which one user's partitions are hot (throttled past the
retries), or one id is refused: the other users are served exactly as without the fault,
and the affected user keeps its id and every field whose reads did not fail.

The expectations are the fault-free answers of the same query, read first through the same
proxy with no rule; the faults are the proxy's hot partition (support/faults.py)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import pytest
from strawberry.types import ExecutionResult

from gateway.resources import open_dynamo
from gateway.settings import Settings
from loaders.dynamodb import Dynamo, FinishedCall
from loaders.tables import create_tables
from schema import access_plan
from schema.context import build_context
from schema.principal import Principal
from support.faults import FaultProxy
from support.fixed_clock import FixedClock
from support.seed import seed_users
from tests.conftest import NOW, unique_table_names
from tests.schema.conftest import DASHBOARD_USER, data_of
from tests.schema.test_user_queries import EVERY_FIELD

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

IDS = [f"dash-{index:02d}" for index in range(20)]
HOT = 7
HOT_USER = IDS[HOT]

#: What a dashboard shows of each user: point reads and Queries, few enough of the
#: USERS#<id> partition that the access plan reads it field by field (checked below).
DASHBOARD = """
  query($ids: [ID!]!) { users(ids: $ids) {
    id
    payday { nextDate }
    incomeVerification { txnId verificationStatus }
    alert { alertSent }
    savingsMonths { month totalAvailable }
    paveLabel { label }
    lowBalanceAlert
    latestMine { minedAt }
    cashAdvanceScores(limit: 3) { score }
    incomeDetectionRuns(limit: 1) { runDate }
  } }
"""
#: The dashboard's fields, by the calls that read them for one user.
QUERY_FIELDS = ("latestMine", "cashAdvanceScores", "incomeDetectionRuns")
POINT_FIELDS = (
    "payday",
    "incomeVerification",
    "alert",
    "savingsMonths",
    "paveLabel",
    "lowBalanceAlert",
)
#: payday, verification, alert, three months, pave label, balance settings.
POINT_KEYS_PER_USER = 8


def user_partitions(user_id: str) -> list[str]:
    """Every partition key that names a user, across the tables."""
    return [
        f"USERS#{user_id}",
        f"MINE#{user_id}",
        f"PAYDAY#{user_id}",
        f"LABEL#{user_id}",
        f"INCOME_DETECTION#{user_id}",
        user_id,
    ]


MAX_ATTEMPTS = 2
UNAVAILABLE = {"code": "DYNAMODB_UNAVAILABLE"}
FORBIDDEN = {"code": "FORBIDDEN"}


@pytest.fixture(scope="module")
async def settings(dynamodb: DynamoDBClient, endpoint_url: str) -> Settings:
    names = unique_table_names()
    await create_tables(dynamodb, names)
    settings = Settings(dynamodb_endpoint_url=endpoint_url, tables=names)
    await seed_users(Dynamo(dynamodb, names), IDS, NOW, settings)
    return settings


@pytest.fixture(scope="module")
async def faulty(settings: Settings, module_proxy: FaultProxy) -> AsyncIterator[Dynamo]:
    """The gateway's own client (gateway.resources), pointed at the proxy."""
    through_proxy = dataclasses.replace(
        settings,
        dynamodb_endpoint_url=module_proxy.endpoint_url,
        dynamodb_max_attempts=MAX_ATTEMPTS,
        # No fault here is a slow answer: generous timeouts, so that a busy machine (the
        # proxy shares the test's event loop) never fails a fault-free read.
        dynamodb_connect_timeout_seconds=10.0,
        dynamodb_read_timeout_seconds=10.0,
        dynamodb_unprocessed_deadline_seconds=1.0,
    )
    async with open_dynamo(through_proxy) as dynamo:
        yield dynamo


@pytest.fixture(scope="module")
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture
def dashboard(gateway_schema: Any, faulty: Dynamo, clock: FixedClock) -> Any:
    async def run(
        query: str, ids: list[str], principal: Principal = DASHBOARD_USER
    ) -> ExecutionResult:
        async def request() -> ExecutionResult:
            context = build_context(dynamo=faulty, principal=principal, clock=clock)
            result: ExecutionResult = await gateway_schema.execute(
                query, variable_values={"ids": ids}, context_value=context
            )
            return result

        return await asyncio.create_task(request())

    return run


def errors_by_path(result: ExecutionResult) -> dict[tuple[str | int, ...], dict[str, Any]]:
    assert result.errors, "expected errors"
    paths = [tuple(error.path or ()) for error in result.errors]
    assert len(paths) == len(set(paths)), "one error per failed field"
    return {tuple(error.path or ()): error.extensions or {} for error in result.errors}


def assert_only_the_hot_user_differs(
    result: ExecutionResult, healthy: list[dict[str, Any]], failed: tuple[str, ...]
) -> None:
    users = result.data["users"] if result.data else None
    assert users is not None
    assert len(users) == len(IDS)
    for index, (user, want) in enumerate(zip(users, healthy, strict=True)):
        if index != HOT:
            assert user == want, f"user {index} differs from the fault-free answer"
    assert users[HOT] == {**healthy[HOT], **dict.fromkeys(failed)}
    assert errors_by_path(result) == {("users", HOT, name): UNAVAILABLE for name in failed}


async def test_the_dashboard_reads_its_partitions_field_by_field() -> None:
    fields = [(name, None) for name in (*POINT_FIELDS, *QUERY_FIELDS)]
    assert not access_plan.reads_partition_whole(fields, {})


async def test_a_users_throttled_queries_null_only_its_query_fields(
    dashboard: Any, proxy: FaultProxy
) -> None:
    healthy = data_of(await dashboard(DASHBOARD, IDS))["users"]
    assert all(value not in (None, []) for user in healthy for value in user.values())
    for partition in user_partitions(HOT_USER):
        proxy.hot_partition(partition, batch_get=False)

    result = await dashboard(DASHBOARD, IDS)

    assert_only_the_hot_user_differs(result, healthy, QUERY_FIELDS)
    # Each of the hot user's three Queries, tried exactly the bounded number of times.
    assert proxy.injected["Query"] == len(QUERY_FIELDS) * MAX_ATTEMPTS
    assert proxy.injected["BatchGetItem"] == 0


async def test_a_hot_partition_fails_its_keys_of_a_batch_and_serves_the_others(
    dashboard: Any, proxy: FaultProxy, observed: list[FinishedCall]
) -> None:
    """USERS#<id> is hot: its Query is throttled and BatchGetItem leaves its keys
    unprocessed round after round. Only the fields read from it are null; the other 19
    users' keys of the same BatchGetItem calls, and the user's other partitions, are
    served."""
    healthy = data_of(await dashboard(DASHBOARD, IDS))["users"]
    proxy.hot_partition(f"USERS#{HOT_USER}")
    observed.clear()

    result = await dashboard(DASHBOARD, IDS)

    assert_only_the_hot_user_differs(
        result, healthy, ("incomeVerification", "alert", "savingsMonths", "cashAdvanceScores")
    )
    assert proxy.injected["Query"] == MAX_ATTEMPTS
    hot_keys = [f"USERS#{HOT_USER}"] * len(("verification", "alert", "3 months", "", ""))
    first_round: list[list[str]] = []
    re_requests: list[list[str]] = []
    for call in observed:
        if call.operation == "batch_get_item":
            keys = [k for table in call.params["RequestItems"].values() for k in table["Keys"]]
            pks = [key["PK"]["S"] if "PK" in key else key["user_id"]["S"] for key in keys]
            (re_requests if pks == hot_keys else first_round).append(pks)
    # The first round carried every user's point keys (two pages); any re-request (as
    # many as fit in the unprocessed-keys deadline) only the hot partition's five.
    assert sum(len(pks) for pks in first_round) == len(IDS) * POINT_KEYS_PER_USER
    assert len(first_round) == 2
    assert proxy.injected["BatchGetItem"] == 1 + len(re_requests)


async def test_a_hot_partition_read_whole_nulls_every_field_it_serves(
    dashboard: Any, proxy: FaultProxy, gateway_schema: Any
) -> None:
    """Every field: the plan reads USERS#<id> whole with one Query, which also answers the
    partition's point reads, so all the fields of that partition are null (they needed the
    failed call); the user's other partitions are served."""
    query = f"query($ids: [ID!]!) {{ users(ids: $ids) {{ {EVERY_FIELD} }} }}"
    healthy = data_of(await dashboard(query, IDS))["users"]
    proxy.hot_partition(f"USERS#{HOT_USER}")

    result = await dashboard(query, IDS)

    partition_fields = (
        "incomeVerification",
        "savingsMonths",
        "alert",
        "income",
        "recurringExpenses",
        "rituals",
        "cashAdvanceScores",
        "lastPages",
    )
    assert set(partition_fields) < set(healthy[HOT])
    assert_only_the_hot_user_differs(result, healthy, partition_fields)
    # One Query of the partition, tried MAX_ATTEMPTS times; no point read touched it.
    assert proxy.injected == {"Query": MAX_ATTEMPTS}


async def test_a_refused_id_among_readable_ones_is_null_at_its_place(
    dashboard: Any, proxy: FaultProxy, observed: list[FinishedCall]
) -> None:
    """An end user asks for their own user, another user, and their own again: the other
    is null with FORBIDDEN at its index and nothing of it is read; the own ones are
    served as a dashboard reads them."""
    own, other = IDS[3], IDS[HOT]
    as_dashboard = data_of(await dashboard(DASHBOARD, [own, other, own]))["users"]
    observed.clear()

    result = await dashboard(DASHBOARD, [own, other, own], Principal(sub=own))

    assert result.data == {"users": [as_dashboard[0], None, as_dashboard[2]]}
    assert errors_by_path(result) == {("users", 1): FORBIDDEN}
    assert observed, "the readable user was read"
    assert not any(other in str(call.params) for call in observed)
