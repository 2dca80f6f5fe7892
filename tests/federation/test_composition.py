"""End to end: the gateway as a subgraph, composed by Apollo's own composition with a second
subgraph whose teams return `User` references, and queried through Apollo's gateway: the
insight fields of 10 users come back as `users(ids:)` answers them, from one `_entities`
fetch that waits on DynamoDB once."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.cli.demo import ADA, BOB, CY, seed_demo
from gateway.cli.main import schema_sdl
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.principal import DASHBOARD
from schema.root import build_schema
from support.every_field import every_field
from support.fixed_clock import FixedClock
from tests.conftest import NOW
from tests.federation.composed_router import ComposedRouter
from tests.live_server import serve_in_thread

SECRET = "federation-tests-secret-0123456789abcdef"
# The demo's users (every entity; a stale payday and expired rows; nothing), and 7 more.
TEAM = [ADA, BOB, CY, *(f"team-u{n:02}" for n in range(4, 11))]
EVERY_USER_FIELD = every_field(build_schema()._schema, "User")


@pytest.fixture
def subgraph_url(settings: Settings) -> Iterator[str]:
    """The gateway with INSIGHT_FEDERATION on, under uvicorn on 127.0.0.1, on the suite's
    moto tables, at the suite's "now"."""
    configured = dataclasses.replace(
        settings,
        federation=True,
        auth_hs256_secret=SECRET,
        # moto on a loaded machine: slowness must not read as DYNAMODB_UNAVAILABLE here.
        dynamodb_read_timeout_seconds=30.0,
        request_deadline_seconds=60.0,
    )
    with serve_in_thread(create_app(configured, clock=FixedClock(NOW))) as base_url:
        yield f"{base_url}/graphql"


@pytest.fixture
def router(subgraph_url: str, tmp_path: Path) -> Iterator[ComposedRouter]:
    sdl = tmp_path / "insight.graphql"
    sdl.write_text(schema_sdl(federation=True))
    with ComposedRouter(subgraph_url, sdl, {"growth": TEAM}) as composed:
        yield composed


def dashboard_headers(sub: str = "dash-1", roles: tuple[str, ...] = (DASHBOARD,)) -> dict[str, str]:
    token = mint_token(SECRET, sub, roles, timedelta(hours=1), FixedClock(NOW))
    return {"Authorization": f"Bearer {token}", "X-Insight-Cost": "1"}


async def post(
    url: str,
    query: str,
    variables: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Any:
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.post(
            url,
            json={"query": query, "variables": variables or {}},
            headers=headers or dashboard_headers(),
        )
    assert response.status_code == 200, response.text
    return response.json()


async def test_insight_fields_of_ten_users_through_the_composed_router(
    dynamo: Dynamo, settings: Settings, subgraph_url: str, router: ComposedRouter
) -> None:
    await seed_demo(dynamo, NOW, settings)

    composed = await post(
        router.url, f'{{ team(name: "growth") {{ name members {EVERY_USER_FIELD} }} }}'
    )
    users = f"query($ids: [ID!]!) {{ users(ids: $ids) {EVERY_USER_FIELD} }}"
    direct = await post(subgraph_url, users, {"ids": TEAM})

    assert "errors" not in composed, composed["errors"]
    team = composed["data"]["team"]
    assert team["name"] == "growth"
    assert team["members"] == direct["data"]["users"]
    assert [member["id"] for member in team["members"]] == TEAM
    ada, bob = team["members"][:2]
    assert ada["payday"]["predictionDate"] == NOW.date().isoformat()
    assert len(ada["recurringExpenses"]) == 3
    assert bob["payday"] is None  # computed yesterday: not served today
    # One fetch of the insight subgraph (`_entities` with the 10 representations), which
    # made the calls `users(ids:)` makes, and waited on DynamoDB once.
    [cost] = composed["extensions"]["insightCosts"]
    assert cost["roundTrips"] == 1
    assert cost["dynamodbCalls"] == direct["extensions"]["cost"]["dynamodbCalls"]
    assert cost["dynamodbCalls"] == 3 * len(TEAM) + 1


async def test_an_end_user_through_the_router_reads_only_their_own_user(
    dynamo: Dynamo, settings: Settings, router: ComposedRouter
) -> None:
    await seed_demo(dynamo, NOW, settings)

    composed = await post(
        router.url,
        '{ team(name: "growth") { members { id alert { alertSent } } } }',
        headers=dashboard_headers(sub=ADA, roles=()),
    )

    members = composed["data"]["team"]["members"]
    assert members[0] == {"id": ADA, "alert": {"alertSent": True}}
    # The router keeps the ids it got from the accounts subgraph and nulls what the insight
    # subgraph refused, with the refusal at each member's place.
    assert members[1:] == [{"id": user_id, "alert": None} for user_id in TEAM[1:]]
    assert sorted(
        (tuple(error["path"]), error["extensions"]["code"]) for error in composed["errors"]
    ) == [(("team", "members", n), "FORBIDDEN") for n in range(1, len(TEAM))]
    # The refused users' rows are never read: one BatchGetItem key, ADA's alert.
    [cost] = composed["extensions"]["insightCosts"]
    assert cost["dynamodbCalls"] == 1
