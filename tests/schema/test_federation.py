"""The schema as a federation subgraph: `_service { sdl }`, `User @key(fields: "id")`, and
`_entities` resolved as `users(ids:)` is: the same answers, read rule, waits and cost."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial
from typing import Any

import pytest
from graphql import parse
from strawberry.types import ExecutionResult

from gateway.cli.demo import ADA, BOB, CY, seed_demo
from gateway.cli.main import schema_sdl
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.context import build_context
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions import QueryLimitsCheck
from schema.extensions.measures import query_cost
from schema.prepared import PreparedOperations
from schema.principal import Principal
from schema.root import build_schema
from support.fixed_clock import FixedClock
from tests.conftest import NOW
from tests.schema.conftest import DASHBOARD_USER, data_of

TEN_USERS = [ADA, BOB, CY, *(f"fed-u{n}" for n in range(4, 11))]
SELECTION = (
    "id payday { nextDate } alert { alertSent cooldownUntil } lowBalanceAlert "
    "savingsMonths { month totalAvailable } recurringExpenses { merchantName amount } "
    "latestMine { minedAt } cashAdvanceScores(limit: 2) { score }"
)
ENTITIES = (
    "query($representations: [_Any!]!) { _entities(representations: $representations) "
    f"{{ ... on User {{ {SELECTION} }} }} }}"
)
USERS = f"query($ids: [ID!]!) {{ users(ids: $ids) {{ {SELECTION} }} }}"
#: The gateway's default limits, but a cost of 100.
COST_100 = replace(Settings().query_limits, max_cost=100)


def representations(ids: list[str]) -> dict[str, Any]:
    return {"representations": [{"__typename": "User", "id": user_id} for user_id in ids]}


@pytest.fixture(scope="module")
def subgraph_schema() -> Any:
    return build_schema(federation=True)


@pytest.fixture
async def demo(dynamo: Dynamo, settings: Settings) -> None:
    await seed_demo(dynamo, NOW, settings)


async def run(
    schema: Any,
    query: str,
    variables: dict[str, Any],
    *,
    dynamo: Dynamo,
    principal: Principal = DASHBOARD_USER,
) -> ExecutionResult:
    """One request that asks for `extensions.cost`."""
    context = build_context(
        dynamo=dynamo,
        principal=principal,
        clock=FixedClock(NOW),
        cost_requested=True,
    )
    result: ExecutionResult = await schema.execute(
        query, variable_values=variables, context_value=context
    )
    return result


async def test_the_service_sdl_is_the_printed_subgraph_with_user_as_an_entity(
    subgraph_schema: Any, dynamo: Dynamo
) -> None:
    result = await run(subgraph_schema, "{ _service { sdl } }", {}, dynamo=dynamo)
    sdl = data_of(result)["_service"]["sdl"]

    assert sdl + "\n" == schema_sdl(federation=True)
    assert sdl.startswith(
        'schema @link(url: "https://specs.apollo.dev/federation/v2.0", import: ["@key"])'
        ' @link(url: "https://specs.apollo.dev/cost/v0.1", import: ["@cost", "@listSize"]) {'
    )
    assert 'type User @key(fields: "id") {' in sdl
    assert "union _Entity = User" in sdl
    # The subgraph is the gateway's schema plus federation's own parts and the cost
    # directives (tests/schema/test_cost_directives.py), nothing else.
    plain = schema_sdl()
    assert "_service" not in plain
    assert "_entities" not in plain
    assert "@key" not in plain
    assert "@cost" not in plain
    without_costs = re.sub(r" @(cost|listSize)\([^)]*\)", "", sdl)
    # (The plain SDL's explicit `schema {` is the subgraph's `schema @link(…) {`.)
    for line in plain.removeprefix("schema {\n").splitlines():
        assert line.replace("type User {", 'type User @key(fields: "id") {') in without_costs


@pytest.mark.usefixtures("demo")
async def test_entities_answer_what_users_answers_in_one_round_trip(
    subgraph_schema: Any, dynamo: Dynamo
) -> None:
    by_ids = await run(subgraph_schema, USERS, {"ids": TEN_USERS}, dynamo=dynamo)
    by_entities = await run(subgraph_schema, ENTITIES, representations(TEN_USERS), dynamo=dynamo)

    assert data_of(by_entities)["_entities"] == data_of(by_ids)["users"]
    ada = data_of(by_entities)["_entities"][0]
    assert ada["id"] == ADA
    assert ada["payday"] is not None
    assert len(ada["recurringExpenses"]) == 3
    assert data_of(by_entities)["_entities"][9] == {
        "id": "fed-u10",
        "payday": None,
        "alert": None,
        "lowBalanceAlert": None,
        "savingsMonths": [],
        "recurringExpenses": [],
        "latestMine": None,
        "cashAdvanceScores": [],
    }
    assert by_entities.extensions is not None
    assert by_ids.extensions is not None
    cost = by_entities.extensions["cost"]
    assert cost["roundTrips"] == 1
    assert cost == by_ids.extensions["cost"]


@pytest.mark.usefixtures("demo")
async def test_an_end_user_gets_only_their_own_representations(
    subgraph_schema: Any, dynamo: Dynamo
) -> None:
    result = await run(
        subgraph_schema,
        ENTITIES,
        representations([ADA, BOB, ADA]),
        dynamo=dynamo,
        principal=Principal(ADA),
    )

    assert result.data is not None
    entities = result.data["_entities"]
    assert [entities[0]["id"], entities[1], entities[2]["id"]] == [ADA, None, ADA]
    assert result.errors is not None
    assert [(e.path, e.extensions) for e in result.errors] == [
        (["_entities", 1], {"code": "FORBIDDEN"})
    ]
    # BOB's rows are never read: the calls are those of ADA alone.
    alone = await run(
        subgraph_schema,
        ENTITIES,
        representations([ADA]),
        dynamo=dynamo,
        principal=Principal(ADA),
    )
    assert result.extensions is not None
    assert alone.extensions is not None
    assert result.extensions["cost"]["dynamodbCalls"] == alone.extensions["cost"]["dynamodbCalls"]


@pytest.mark.parametrize(
    "representation",
    [
        {"__typename": "User"},
        {"__typename": "User", "id": 7},
        {"__typename": "User", "id": " "},
        {"__typename": "User", "id": "x" * 2100},
    ],
)
async def test_a_representation_without_a_usable_id_is_bad_input_at_its_place(
    subgraph_schema: Any, dynamo: Dynamo, representation: dict[str, Any]
) -> None:
    variables = {"representations": [{"__typename": "User", "id": "u-1"}, representation]}
    result = await run(subgraph_schema, ENTITIES, variables, dynamo=dynamo)

    assert result.data is not None
    assert result.data["_entities"][0]["id"] == "u-1"
    assert result.data["_entities"][1] is None
    assert result.errors is not None
    assert [(e.path, (e.extensions or {}).get("code")) for e in result.errors] == [
        (["_entities", 1], "BAD_USER_INPUT")
    ]


def test_representations_multiply_the_cost_as_ids_do(subgraph_schema: Any) -> None:
    schema = subgraph_schema._schema
    for count in (1, 10, 100):
        ids = [f"u{n}" for n in range(count)]
        by_entities = query_cost(
            schema, parse(ENTITIES), GATEWAY_COST_POLICY, variables=representations(ids)
        )
        by_ids = query_cost(schema, parse(USERS), GATEWAY_COST_POLICY, variables={"ids": ids})
        # payday, alert, lowBalanceAlert, recurringExpenses, latestMine: 1 each;
        # savingsMonths 3 (its default months), cashAdvanceScores(limit: 2) 2; id 0.
        assert by_entities == by_ids == count * (5 + 3 + 2)


async def test_the_cost_limit_refuses_too_many_representations(dynamo: Dynamo) -> None:
    limited = build_schema(
        [partial(QueryLimitsCheck, COST_100, PreparedOperations(GATEWAY_COST_POLICY))],
        federation=True,
    )
    ten = await run(limited, ENTITIES, representations(TEN_USERS), dynamo=dynamo)
    eleven = await run(
        limited,
        ENTITIES,
        representations([*TEN_USERS, "one-more"]),
        dynamo=dynamo,
    )

    assert ten.errors is None
    assert eleven.data is None
    assert eleven.errors is not None
    assert eleven.errors[0].extensions is not None
    assert eleven.errors[0].extensions["code"] == "QUERY_TOO_COMPLEX"
    assert eleven.extensions is not None
    assert eleven.extensions["cost"]["dynamodbCalls"] == 0


async def test_the_plain_schema_has_no_federation_fields(
    gateway_schema: Any, dynamo: Dynamo
) -> None:
    result = await run(gateway_schema, "{ _service { sdl } }", {}, dynamo=dynamo)

    assert result.errors is not None
    assert "Cannot query field '_service' on type 'Query'." in result.errors[0].message
