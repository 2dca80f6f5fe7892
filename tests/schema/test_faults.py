"""Correct answers or exactly-placed DYNAMODB_UNAVAILABLE errors, under each fault that
DynamoDB and the network produce, injected by a proxy in front of the moto server.

Every expectation is the fault-free answer of the same query (read first, straight from
moto), so a retried read must match it byte for byte; a failed read must null exactly the
fields that needed the failed call and leave every other field equal to it."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import pytest
from strawberry.types import ExecutionResult

from gateway.cli.demo import ADA, BOB, seed_demo
from gateway.resources import open_dynamo
from gateway.settings import Settings
from loaders.dynamodb import Dynamo, FinishedCall
from loaders.tables import TableNames, create_tables
from schema.context import build_context
from schema.prepared import owner_of
from support.faults import Delay, Drop, FaultProxy, ServerError, Throttle, Unprocess
from support.fixed_clock import FixedClock
from tests.conftest import NOW
from tests.schema.conftest import DASHBOARD_USER, data_of

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

#: Nullable fields served by BatchGetItem (point reads).
POINT_FIELDS = ("payday", "incomeVerification", "alert", "income", "paveLabel", "lowBalanceAlert")
#: A nullable field served by Query.
QUERY_FIELD = "latestMine"

NULLABLE_QUERY = """
  query($id: ID!) { user(id: $id) {
    id
    payday { predictionDate nextDate loanId }
    incomeVerification { txnId amountInCents }
    alert { alertSent balanceSetting }
    income { amount source }
    paveLabel { label }
    lowBalanceAlert
    latestMine { minedAt recurringCount }
  } }
"""

EVERY_FIELD_QUERY = """
  query($id: ID!) { user(id: $id) {
    id payday { predictionDate } incomeVerification { txnId } savingsMonths { month totalAvailable }
    alert { alertSent } recurringExpenses { merchantName dueDate } rituals { merchantName }
    cashAdvanceScores { score } incomeDetectionRuns { runDate } income { amount }
    latestMine { minedAt } paveLabel { label } lastPages { page } lowBalanceAlert
  } }
"""

# Small enough that a slow call fails fast, large enough for moto on a busy machine.
READ_TIMEOUT = 1.0
MAX_ATTEMPTS = 2
#: How long re-requests of UnprocessedKeys may go on: four rounds take ~0.4 s on an idle
#: machine (backoff ceilings 25, 50, 100 and 200 ms, and five calls), so 4 s is 10x that.
UNPROCESSED_DEADLINE = 4.0
#: The attempts' timeouts and botocore's backoff (< 1 s each) bound a lasting fault's wait;
#: a test of "never a hang" allows 4x that (a busy machine stretches it, never by 4x), and
#: its delayed answers come far later still (`LASTING_DELAY`), so a missing timeout fails it.
NEVER_A_HANG = 4 * MAX_ATTEMPTS * (READ_TIMEOUT + 1.0)
LASTING_DELAY = Delay(READ_TIMEOUT * 30)


# The fault tests only read: one set of seeded tables, one proxy and one gateway client
# serve the whole module, and each test starts with a proxy that has no rules.


@pytest.fixture(scope="module")
async def settings(dynamodb: DynamoDBClient, endpoint_url: str) -> Settings:
    suffix = f"-faults-{uuid.uuid4().hex[:8]}"
    names = TableNames(**{table.value: name + suffix for table, name in TableNames().all().items()})
    await create_tables(dynamodb, names)
    settings = Settings(dynamodb_endpoint_url=endpoint_url, tables=names)
    await seed_demo(Dynamo(dynamodb, names), NOW, settings)
    return settings


@pytest.fixture(scope="module")
def dynamo(dynamodb: DynamoDBClient, settings: Settings) -> Dynamo:
    return Dynamo(dynamodb, settings.tables)


@pytest.fixture(scope="module")
async def faulty(settings: Settings, module_proxy: FaultProxy) -> AsyncIterator[Dynamo]:
    """The gateway's own client (gateway.resources), pointed at the proxy."""
    through_proxy = dataclasses.replace(
        settings,
        dynamodb_endpoint_url=module_proxy.endpoint_url,
        dynamodb_max_attempts=MAX_ATTEMPTS,
        dynamodb_connect_timeout_seconds=READ_TIMEOUT,
        dynamodb_read_timeout_seconds=READ_TIMEOUT,
        dynamodb_unprocessed_deadline_seconds=UNPROCESSED_DEADLINE,
    )
    async with open_dynamo(through_proxy) as dynamo:
        yield dynamo


@pytest.fixture(scope="module")
def clock() -> FixedClock:
    return FixedClock(NOW)


async def run(
    schema: Any,
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    query: str,
    user: str = ADA,
    *,
    deadline: float | None = None,
) -> ExecutionResult:
    """One request, in its own task as the server runs it, its deadline in its scope."""

    async def request() -> ExecutionResult:
        context = build_context(
            dynamo=dynamo, principal=DASHBOARD_USER, clock=clock, deadline_seconds=deadline
        )
        result: ExecutionResult = await schema.execute(
            query, variable_values={"id": user}, context_value=context
        )
        return result

    return await asyncio.create_task(request())


def failed_paths(result: ExecutionResult) -> dict[tuple[str | int, ...], dict[str, Any]]:
    assert result.errors, "expected errors"
    return {tuple(error.path or ()): error.extensions or {} for error in result.errors}


UNAVAILABLE = {"code": "DYNAMODB_UNAVAILABLE"}


@pytest.fixture(scope="module")
async def expected(
    gateway_schema: Any, dynamo: Dynamo, settings: Settings, clock: FixedClock
) -> dict[str, Any]:
    """The fault-free answers, straight from moto; every field the tests look at is set."""
    nullable = data_of(await run(gateway_schema, dynamo, settings, clock, NULLABLE_QUERY))
    every = data_of(await run(gateway_schema, dynamo, settings, clock, EVERY_FIELD_QUERY))
    assert all(nullable["user"][name] is not None for name in (*POINT_FIELDS, QUERY_FIELD))
    assert all(value not in (None, []) for value in every["user"].values())
    return {"nullable": nullable, "every": every}


@pytest.mark.parametrize(
    ("operation", "fault"),
    [
        ("BatchGetItem", Throttle()),
        ("BatchGetItem", Throttle("ThrottlingException")),
        ("BatchGetItem", ServerError()),
        ("BatchGetItem", Drop()),
        ("BatchGetItem", Delay(READ_TIMEOUT * 3)),
        ("Query", Throttle()),
        ("Query", ServerError()),
        ("Query", Drop()),
        ("Query", Delay(READ_TIMEOUT * 3)),
    ],
    ids=repr,
)
async def test_a_passing_fault_is_retried_to_the_full_answer(
    operation: str,
    fault: Any,
    expected: dict[str, Any],
    proxy: FaultProxy,
    faulty: Dynamo,
    gateway_schema: Any,
    settings: Settings,
    clock: FixedClock,
) -> None:
    proxy.inject(operation, fault, times=MAX_ATTEMPTS - 1)
    result = await run(gateway_schema, faulty, settings, clock, EVERY_FIELD_QUERY)
    assert data_of(result) == expected["every"]
    assert proxy.injected[operation] == MAX_ATTEMPTS - 1


@pytest.mark.parametrize(
    "fault",
    [Throttle(), ServerError(), Drop(), LASTING_DELAY],
    ids=repr,
)
async def test_a_lasting_batch_get_fault_nulls_exactly_the_point_read_fields(
    fault: Any,
    expected: dict[str, Any],
    proxy: FaultProxy,
    faulty: Dynamo,
    gateway_schema: Any,
    settings: Settings,
    clock: FixedClock,
) -> None:
    proxy.inject("BatchGetItem", fault, times=1000)
    started = time.monotonic()
    result = await run(gateway_schema, faulty, settings, clock, NULLABLE_QUERY)
    elapsed = time.monotonic() - started
    want = dict(expected["nullable"]["user"])
    want.update(dict.fromkeys(POINT_FIELDS))
    assert result.data == {"user": want}
    assert failed_paths(result) == {("user", name): UNAVAILABLE for name in POINT_FIELDS}
    assert {error.message for error in result.errors or ()} == {
        "The data store is unavailable; try again"
    }
    # One BatchGetItem for the whole tick, tried exactly the bounded number of times.
    assert proxy.injected["BatchGetItem"] == MAX_ATTEMPTS
    # Never a hang: the attempts' timeouts and botocore's backoff bound it.
    assert elapsed < NEVER_A_HANG


@pytest.mark.parametrize(
    "fault",
    [Throttle(), ServerError(), Drop(), Delay(READ_TIMEOUT * 3)],
    ids=repr,
)
async def test_a_lasting_query_fault_nulls_exactly_the_query_field(
    fault: Any,
    expected: dict[str, Any],
    proxy: FaultProxy,
    faulty: Dynamo,
    gateway_schema: Any,
    settings: Settings,
    clock: FixedClock,
) -> None:
    proxy.inject("Query", fault, times=1000)
    result = await run(gateway_schema, faulty, settings, clock, NULLABLE_QUERY)
    assert result.data == {"user": {**expected["nullable"]["user"], QUERY_FIELD: None}}
    assert failed_paths(result) == {("user", QUERY_FIELD): UNAVAILABLE}
    assert proxy.injected["Query"] == MAX_ATTEMPTS


async def test_a_failed_list_is_null_never_short_and_nulls_nothing_else(
    expected: dict[str, Any],
    proxy: FaultProxy,
    faulty: Dynamo,
    gateway_schema: Any,
    settings: Settings,
    clock: FixedClock,
) -> None:
    """`cashAdvanceScores` is a nullable list: when its Query fails, the list alone is null
    with the error, its neighbours are served. An empty or partial list would be a wrong
    answer that looks right (empty means read, and nothing there)."""
    query = (
        "query($id: ID!) { user(id: $id) { id payday { nextDate } cashAdvanceScores { score } } }"
    )
    healthy = data_of(await run(gateway_schema, faulty, settings, clock, query))
    assert healthy["user"]["cashAdvanceScores"]
    proxy.inject(
        "Query", Throttle(), times=1000, when=lambda body: "CASH_ADVANCE_SCORE#" in str(body)
    )
    result = await run(gateway_schema, faulty, settings, clock, query)
    assert result.data == {"user": {**healthy["user"], "cashAdvanceScores": None}}
    assert failed_paths(result) == {("user", "cashAdvanceScores"): UNAVAILABLE}
    assert proxy.injected["Query"] == MAX_ATTEMPTS


async def test_unprocessed_keys_for_several_rounds_still_give_the_full_answer(
    expected: dict[str, Any],
    observed: list[FinishedCall],
    proxy: FaultProxy,
    faulty: Dynamo,
    gateway_schema: Any,
    settings: Settings,
    clock: FixedClock,
) -> None:
    # One key a table a round for four rounds (DynamoDB's answer to a call over its
    # capacity); the six point reads (five of site-pave) are done in the fifth.
    proxy.inject("BatchGetItem", Unprocess(keep=1), times=4)
    result = await run(gateway_schema, faulty, settings, clock, NULLABLE_QUERY)
    assert data_of(result) == expected["nullable"]
    batches = [call for call in observed if call.operation == "batch_get_item"]
    assert proxy.injected["BatchGetItem"] == 4
    sizes = [
        {table: len(request["Keys"]) for table, request in call.params["RequestItems"].items()}
        for call in batches
    ]
    assert [sorted(size.values()) for size in sizes] == [[1, 5], [4], [3], [2], [1]]
    # Each round re-requests exactly what the one before left unprocessed (all but the
    # first key of each table).
    for before, after in itertools.pairwise(batches):
        left = {
            table: request["Keys"][1:]
            for table, request in before.params["RequestItems"].items()
            if request["Keys"][1:]
        }
        assert {t: r["Keys"] for t, r in after.params["RequestItems"].items()} == left


async def test_keys_left_unprocessed_past_the_deadline_fail_only_the_point_reads(
    expected: dict[str, Any],
    proxy: FaultProxy,
    faulty: Dynamo,
    gateway_schema: Any,
    settings: Settings,
    clock: FixedClock,
) -> None:
    proxy.inject("BatchGetItem", Unprocess(keep=0), times=10_000)
    started = time.monotonic()
    result = await run(gateway_schema, faulty, settings, clock, NULLABLE_QUERY)
    elapsed = time.monotonic() - started
    want = {**expected["nullable"]["user"], **dict.fromkeys(POINT_FIELDS)}
    assert result.data == {"user": want}
    assert failed_paths(result) == {("user", name): UNAVAILABLE for name in POINT_FIELDS}
    # The deadline ends the re-requests (they would go on for 10,000 rounds): 4x its figure.
    assert elapsed < 4 * UNPROCESSED_DEADLINE
    assert proxy.injected["BatchGetItem"] > 2


async def test_the_request_deadline_bounds_a_slow_dynamodb(
    expected: dict[str, Any],
    proxy: FaultProxy,
    faulty: Dynamo,
    gateway_schema: Any,
    settings: Settings,
    clock: FixedClock,
) -> None:
    """Each attempt is under the read timeout, but together they would take longer than
    the request may: the deadline ends the call and only its fields fail."""
    # The answer comes 4.5x later than the deadline, so a busy loop cannot let it in first.
    proxy.inject("Query", Delay(READ_TIMEOUT * 0.9), times=1000)
    result = await run(
        gateway_schema, faulty, settings, clock, NULLABLE_QUERY, deadline=READ_TIMEOUT * 0.2
    )
    # The attempt would have succeeded (its delay is under the read timeout): the field is
    # null because the deadline ended it, and nothing was tried after the deadline.
    assert result.data == {"user": {**expected["nullable"]["user"], QUERY_FIELD: None}}
    assert failed_paths(result) == {("user", QUERY_FIELD): UNAVAILABLE}
    assert proxy.received["Query"] == proxy.injected["Query"] == 1


async def test_a_failed_page_fails_only_its_own_users(
    proxy: FaultProxy,
    faulty: Dynamo,
    dynamo: Dynamo,
    gateway_schema: Any,
    settings: Settings,
    clock: FixedClock,
) -> None:
    """60 users' 120 point reads go out as two pages (keys 1-100: users 0-49, keys 101-120:
    users 50-59); throttle only the page that holds demo-bob's keys: the users of that page
    fail, everyone else's fields (demo-ada's too) are right."""
    fillers = [f"filler-{index:03d}" for index in range(58)]
    ids = [ADA, *fillers, BOB]
    query = (
        "query($ids: [ID!]!) { users(ids: $ids) { id payday { nextDate } alert { alertSent } } }"
    )

    async def users(via: Dynamo) -> ExecutionResult:
        context = build_context(dynamo=via, principal=DASHBOARD_USER, clock=clock)
        result: ExecutionResult = await gateway_schema.execute(
            query, variable_values={"ids": ids}, context_value=context
        )
        return result

    want = data_of(await users(dynamo))
    assert want["users"][0]["alert"] is not None
    proxy.inject("BatchGetItem", Throttle(), times=1000, when=lambda body: BOB in str(body))
    owner = owner_of(gateway_schema._schema)
    assert owner is not None
    answered, fell_back = owner.completion.compiled, owner.completion.fell_back
    result = await users(faulty)
    # The compiled form asked every read before the one wait; a failed read left the
    # operation to graphql-core's path, which answered from the same settled loads.
    assert owner.completion.compiled - answered == 0
    assert owner.completion.fell_back - fell_back == 1
    second_page = range(50, 60)
    assert failed_paths(result) == {
        ("users", index, name): UNAVAILABLE for index in second_page for name in ("payday", "alert")
    }
    for index in second_page:
        want["users"][index] = {"id": ids[index], "payday": None, "alert": None}
    assert result.data == want
    assert proxy.injected["BatchGetItem"] == MAX_ATTEMPTS
