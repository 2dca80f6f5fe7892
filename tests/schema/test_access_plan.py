"""The access plan: both plans give the same answers; the collection is chosen from the
selection; any selection waits on DynamoDB once; `extensions.cost` tells the truth."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from graphql import GraphQLObjectType
from strawberry.types import ExecutionResult

from gateway.cli.demo import ADA, BOB, CY, seed_demo
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema import access_plan
from schema.context import build_context
from schema.execution import operation
from support.every_field import every_field
from support.fixed_clock import FixedClock
from tests.conftest import NOW, CallCounter
from tests.schema.conftest import DASHBOARD_USER, data_of

Run = Callable[..., Awaitable[ExecutionResult]]


@pytest.fixture
def run(gateway_schema: Any, settings: Settings, dynamo: Dynamo, clock: FixedClock) -> Run:
    """Execute as one request that asks for `extensions.cost`."""

    async def run_query(
        query: str, variables: dict[str, Any] | None = None, *, on: Dynamo = dynamo
    ) -> ExecutionResult:
        context = build_context(
            dynamo=on,
            principal=DASHBOARD_USER,
            clock=clock,
            cost_requested=True,
        )
        result: ExecutionResult = await gateway_schema.execute(
            query, variable_values=variables, context_value=context
        )
        return result

    return run_query


@pytest.fixture
async def demo(dynamo: Dynamo, settings: Settings) -> None:
    await seed_demo(dynamo, NOW, settings)


def cost_of(result: ExecutionResult) -> dict[str, Any]:
    assert result.extensions is not None
    cost: dict[str, Any] = result.extensions["cost"]
    return cost


def full_user(gateway_schema: Any) -> str:
    return every_field(gateway_schema._schema, "User")


def user_fields(gateway_schema: Any) -> dict[str, str]:
    """Each User field alone, with its own sub-selection."""
    user = gateway_schema._schema.get_type("User")
    assert isinstance(user, GraphQLObjectType)
    return {name: _one_field(gateway_schema, name) for name in user.fields}


def _one_field(gateway_schema: Any, name: str) -> str:
    full = every_field(gateway_schema._schema, "User")
    # The full selection lists fields in schema order at the top level; cut one out.
    user = gateway_schema._schema.get_type("User")
    names = list(user.fields)
    start = full.index(f" {name}", 1) + 1
    following = names[names.index(name) + 1 :]
    end = full.index(f" {following[0]} ", start) if following else len(full) - 2
    return "{ " + full[start:end].strip() + " }"


def test_every_user_field_declares_its_reads(gateway_schema: Any) -> None:
    user = gateway_schema._schema.get_type("User")
    assert set(user.fields) == set(access_plan.USER_READS)


@pytest.mark.usefixtures("demo")
async def test_the_collection_answers_exactly_what_the_prefix_plan_answers(
    run: Run, gateway_schema: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = (
        "query($ids: [ID!]!) { users(ids: $ids) { ...Full "
        "year: savingsMonths(months: 12) { month totalAvailable } "
        "two: cashAdvanceScores(limit: 2) { scoredAt } } } "
        f"fragment Full on User {full_user(gateway_schema)}"
    )
    variables = {"ids": [ADA, BOB, CY, ADA]}
    monkeypatch.setattr(access_plan, "COLLECTION_UNITS", float("inf"))
    by_prefix = await run(query, variables)
    monkeypatch.setattr(access_plan, "COLLECTION_UNITS", 0.0)
    # Another document: a compiled operation keeps its decision for its prices.
    by_collection = await run(f"{query} ", variables)
    assert data_of(by_collection) == data_of(by_prefix)
    ada = data_of(by_prefix)["users"][0]
    # The demo's rows make the comparison mean something: rows of an older mine, expired
    # pages, a year of months of which three are in the default window, five scores.
    assert len(ada["recurringExpenses"]) == 3
    assert len(ada["rituals"]) == 2
    assert len(ada["lastPages"]) == 1
    assert [len(ada["savingsMonths"]), len(ada["year"]), len(ada["two"])] == [3, 12, 2]
    # Three partitions read whole (ADA's twice asked) in place of 4 prefixes each.
    assert cost_of(by_collection)["dynamodbCalls"] < cost_of(by_prefix)["dynamodbCalls"]


@pytest.mark.parametrize(
    ("selection", "collected"),
    [
        ("{ id }", False),
        # 2.5 units field by field: points and two small prefixes stay the prefix plan.
        ("{ alert { alertSent } income { amount } savingsMonths { month } }", False),
        ("{ lastPages { page } rituals { merchantId } }", False),
        # A year of months (6) is dearer than the whole partition (3.5).
        ("{ savingsMonths(months: 12) { month } }", True),
        ("{ a: savingsMonths(months: 2) { month } b: savingsMonths(months: 7) { month } }", True),
        # recurring (2.0) + scores (0.5) = 2.5: the bench measured the prefix plan cheaper.
        ("{ recurringExpenses { merchantUuid } cashAdvanceScores { score } }", False),
        # Through fragments: recurring, rituals, last pages, alert, income: 4.0.
        ("{ ... on User { rituals { merchantId } lastPages { page } } ...More }", True),
    ],
)
async def test_the_plan_is_chosen_from_the_selection(
    run: Run, dynamodb_calls: CallCounter, selection: str, collected: bool
) -> None:
    fragment = (
        " fragment More on User { recurringExpenses { merchantUuid } alert { alertSent } "
        "income { amount } }"
    )
    query = f'{{ users(ids: ["u1", "u2"]) {selection} }}'
    if "...More" in selection:
        query += fragment
    data_of(await run(query))
    assert len(whole_partition_queries(dynamodb_calls)) == (2 if collected else 0)


def whole_partition_queries(dynamodb_calls: CallCounter) -> list[dict[str, Any]]:
    return [
        p
        for name, p in dynamodb_calls.requests
        if name == "Query" and ":prefix" not in p["ExpressionAttributeValues"]
    ]


async def test_the_plan_reads_months_from_the_variables_of_each_request(
    run: Run, dynamodb_calls: CallCounter
) -> None:
    """One text, so one memo entry: the months are still each request's own."""
    query = 'query($m: Int!) { users(ids: ["u1", "u2"]) { savingsMonths(months: $m) { month } } }'
    for months, collected in ((12, True), (2, False), (12, True)):
        dynamodb_calls.requests.clear()
        data_of(await run(query, {"m": months}))
        assert len(whole_partition_queries(dynamodb_calls)) == (2 if collected else 0), months


async def test_fields_merged_by_include_are_each_requests_own(
    run: Run, dynamodb_calls: CallCounter
) -> None:
    # The second `users` merges into the first only when included.
    query = (
        'query($year: Boolean!) { users(ids: ["u1"]) { id } '
        'users(ids: ["u1"]) @include(if: $year) { savingsMonths(months: 12) { month } } }'
    )
    for year in (False, True, False):
        dynamodb_calls.requests.clear()
        data_of(await run(query, {"year": year}))
        assert len(whole_partition_queries(dynamodb_calls)) == (1 if year else 0), year


async def test_a_repeated_query_finds_its_user_fields_in_its_prepared_operation(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = '{ user(id: "memo-u1") { ... on User { rituals { merchantId } } ...Pages } } ' + (
        "fragment Pages on User { lastPages { page } alias: savingsMonths(months: 9) { month } }"
    )
    walks: list[object] = []
    walk = access_plan.user_fields

    def counted(*arguments: Any) -> Iterator[access_plan.UserField]:
        walks.append(arguments[0])
        return walk(*arguments)

    monkeypatch.setattr(access_plan, "user_fields", counted)
    first = await run(query)
    walked = len(walks)
    again = await run(query)
    assert first.data == again.data
    assert walked > 0
    assert len(walks) == walked


#: A selection priced by its months; each test gives it its own document (the schema, and
#: so each document's compiled operation, is shared by the tests).
MONTHS_QUERY = (
    'query($m: Int!) {{ users(ids: ["u1"]) {{ {} savingsMonths(months: $m) {{ month }} }} }}'
)


@pytest.fixture
def pricings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The `months` of each pricing of a compiled root field's plans."""
    priced: list[int] = []
    price = access_plan.reads_partition_whole

    def counted(*arguments: Any, **options: Any) -> bool:
        priced.append(arguments[1]["m"])
        return price(*arguments, **options)

    monkeypatch.setattr(operation, "reads_partition_whole", counted)
    return priced


async def run_months(run: Run, dynamodb_calls: CallCounter, months: int, other: str) -> None:
    """MONTHS_QUERY with `other` for `months`: the partition is read whole exactly when the
    months' point reads cost more (7 and over)."""
    dynamodb_calls.requests.clear()
    data_of(await run(MONTHS_QUERY.format(other), {"m": months}))
    assert len(whole_partition_queries(dynamodb_calls)) == (1 if months >= 7 else 0), months


async def test_a_compiled_operation_decides_its_plan_once_for_its_prices_and_months(
    run: Run, dynamodb_calls: CallCounter, pricings: list[int]
) -> None:
    for months in (12, 12, 2, 2, 12):
        await run_months(run, dynamodb_calls, months, "id")
    assert pricings == [12, 2]


async def test_a_root_field_keeps_a_bounded_number_of_choices(
    run: Run, dynamodb_calls: CallCounter, pricings: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client sending ever new values costs a pricing each, not memory each."""
    monkeypatch.setattr(operation, "DECISIONS_KEPT", 2)
    for months in (12, 2, 9, 9, 12, 2):
        await run_months(run, dynamodb_calls, months, "__typename")
    assert pricings == [12, 2, 9, 9]


def test_user_fields_follow_fragments_and_keep_each_alias() -> None:
    from graphql import (
        FieldNode,
        FragmentDefinitionNode,
        IntValueNode,
        OperationDefinitionNode,
        parse,
    )

    document = parse(
        '{ user(id: "u") { id ...A ... on User { b: savingsMonths(months: 9) { month } } } } '
        "fragment A on User { alert { alertSent } savingsMonths { month } ...B } "
        "fragment B on User { income { amount } }"
    )
    operation = document.definitions[0]
    assert isinstance(operation, OperationDefinitionNode)
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    root = operation.selection_set.selections[0]
    assert isinstance(root, FieldNode)
    fields = list(access_plan.user_fields(root.selection_set, fragments))
    assert [name for name, _ in fields] == [
        "id",
        "alert",
        "savingsMonths",
        "income",
        "savingsMonths",
    ]
    months = [node for name, node in fields if name == "savingsMonths"]
    assert months[0] is None
    assert isinstance(months[1], IntValueNode)
    assert months[1].value == "9"
    # 0.5 (alert) + 1.5 (3 months) + 0.5 (income) + 4.5 (9 months)
    assert access_plan.prefix_plan_cost(fields, {}).units == 7.0


async def test_cost_figures_for_representative_queries(run: Run, gateway_schema: Any) -> None:
    # moto's capacity model: 1 a Query, 1 a BatchGetItem key.
    one = await run(f'{{ user(id: "u") {full_user(gateway_schema)} }}')
    # The partition, the latest mine, the detection runs; one BatchGetItem of 3 keys.
    assert cost_of(one) == {"dynamodbCalls": 4, "roundTrips": 1, "readCapacityUnits": 6}
    ids = [f"u{i}" for i in range(100)]
    hundred = await run(
        f"query($ids: [ID!]!) {{ users(ids: $ids) {full_user(gateway_schema)} }}", {"ids": ids}
    )
    assert cost_of(hundred) == {
        "dynamodbCalls": 3 * 100 + 3,
        "roundTrips": 1,
        "readCapacityUnits": 3 * 100 + 300,
    }
    alerts = await run(
        "query($ids: [ID!]!) { users(ids: $ids) { alert { alertSent } } }", {"ids": ids}
    )
    assert cost_of(alerts) == {"dynamodbCalls": 1, "roundTrips": 1, "readCapacityUnits": 100}
    nothing = await run('{ user(id: "u") { id } }')
    assert cost_of(nothing) == {"dynamodbCalls": 0, "roundTrips": 0, "readCapacityUnits": 0}


async def test_cost_is_absent_unless_asked(
    gateway_schema: Any, settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    context = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock)
    result = await gateway_schema.execute(
        '{ user(id: "u") { alert { alertSent } } }', context_value=context
    )
    assert not (result.extensions or {}).get("cost")
    # ...but recorded all the same, for the metrics.
    assert context.calls.calls == 1


@pytest.mark.parametrize("user_count", [1, 3])
async def test_every_field_alone_waits_once(run: Run, gateway_schema: Any, user_count: int) -> None:
    ids = [f"u{i}" for i in range(user_count)]
    for name, selection in user_fields(gateway_schema).items():
        result = await run(f"query($ids: [ID!]!) {{ users(ids: $ids) {selection} }}", {"ids": ids})
        data_of(result)
        assert cost_of(result)["roundTrips"] == (0 if name == "id" else 1), name


async def test_every_field_of_a_hundred_users_waits_once(run: Run, gateway_schema: Any) -> None:
    # A year of months for each: 1,500 point keys, 15 BatchGetItem pages at once.
    ids = [f"u{i}" for i in range(100)]
    result = await run(
        "query($ids: [ID!]!) { users(ids: $ids) { ...Full year: savingsMonths(months: 12) "
        f"{{ month }} }} }} fragment Full on User {full_user(gateway_schema)}",
        {"ids": ids},
    )
    data_of(result)
    assert cost_of(result)["roundTrips"] == 1
    assert cost_of(result)["dynamodbCalls"] == 3 * 100 + 3


class GatedClient:
    """The aioboto3 client whose calls are held until `together` of them are in flight at once
    (then every call goes), counting calls in flight. A plan that never sends that many at once
    waits out `patience` and fails the count: the count says how the calls were sent, not how
    long they took, so a busy machine cannot fail it."""

    def __init__(self, client: Any, together: int, patience: float = 10.0) -> None:
        self._client = client
        self.together = together
        self.patience = patience
        self.meta = client.meta
        self.calls = 0
        self.in_flight = 0
        self.most_in_flight = 0
        self._open = asyncio.Event()

    def __getattr__(self, operation: str) -> Callable[..., Awaitable[Any]]:
        method = getattr(self._client, operation)

        async def gated(**params: Any) -> Any:
            self.calls += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            if self.in_flight >= self.together:
                self._open.set()
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._open.wait(), self.patience)
                return await method(**params)
            finally:
                self.in_flight -= 1

        return gated


@pytest.mark.usefixtures("demo")
async def test_every_field_of_ten_users_costs_one_wait(
    run: Run, gateway_schema: Any, dynamodb: Any, tables: Any
) -> None:
    gated = GatedClient(dynamodb, together=31)
    dynamo = Dynamo(gated, tables, max_concurrency=64)  # type: ignore[arg-type]
    ids = [ADA, BOB, CY] + [f"u{i}" for i in range(7)]
    result = await run(
        f"query($ids: [ID!]!) {{ users(ids: $ids) {full_user(gateway_schema)} }}",
        {"ids": ids},
        on=dynamo,
    )
    data_of(result)
    assert cost_of(result)["dynamodbCalls"] == 31
    # One wait, not two: all 31 calls were in flight at once, before any was answered.
    assert gated.calls == gated.most_in_flight == 31


async def test_calls_in_flight_never_exceed_the_pool_and_fill_it(
    run: Run, gateway_schema: Any, dynamodb: Any, tables: Any
) -> None:
    gated = GatedClient(dynamodb, together=8)
    dynamo = Dynamo(gated, tables, max_concurrency=8)  # type: ignore[arg-type]
    ids = [f"u{i}" for i in range(30)]
    result = await run(
        f"query($ids: [ID!]!) {{ users(ids: $ids) {full_user(gateway_schema)} }}",
        {"ids": ids},
        on=dynamo,
    )
    data_of(result)
    assert gated.most_in_flight == 8


def test_the_cap_defaults_to_the_clients_connection_pool(dynamodb: Any, tables: Any) -> None:
    assert Dynamo(dynamodb, tables).max_concurrency == dynamodb.meta.config.max_pool_connections
