"""`direct, answered, served` (bench/server.py): the floor that answers, as an endpoint of the
gateway's process: the bearer token verified as the gateway verifies it, the ids taken from
the gateway's request, and the answer `bench/answered.py` writes for the direct floor's reads."""

from __future__ import annotations

import asyncio
import dataclasses

import httpx
import orjson
from starlette.applications import Starlette
from starlette.routing import Route

from bench.answered import answer_body
from bench.direct import COLLECTION, read_users
from bench.run import USER_QUERY, USERS_QUERY
from bench.server import AnsweredEndpoint
from gateway.settings import Settings
from gateway.state import Resources
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import SECRET, tokens
from support.seed import seed_users

USERS = ["served-a", "served-b"]


async def test_the_served_floor_answers_the_direct_floors_answer_for_a_valid_token_only(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    await seed_users(dynamo, USERS, clock.now(), settings)
    served = AnsweredEndpoint(dataclasses.replace(settings, auth_hs256_secret=SECRET), clock)
    app = Starlette(routes=[Route("/bench/answered", served.respond, methods=["POST"])])
    app.state.resources = Resources(dynamo=dynamo)
    headers = {"Authorization": f"Bearer {tokens(clock)['dashboard']()}"}
    one = {"query": USER_QUERY, "variables": {"id": USERS[0]}}
    many = {"query": USERS_QUERY, "variables": {"ids": USERS}}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://served"
    ) as client:
        got_one = await client.post("/bench/answered", json=one, headers=headers)
        got_many = await client.post("/bench/answered", json=many, headers=headers)
        refused = await client.post("/bench/answered", json=one, headers={"Authorization": "x"})
    now, slots = clock.now(), asyncio.Semaphore(8)
    for got, ids in ((got_one, USERS[:1]), (got_many, USERS)):
        reads = await read_users(dynamo.client, dynamo.tables, ids, now.date(), COLLECTION, slots)
        want = orjson.loads(answer_body(reads, dynamo.tables, ids, now))
        assert got.status_code == 200
        assert orjson.loads(got.content) == want
    assert list(orjson.loads(got_one.content)["data"]) == ["user"]
    assert [user["id"] for user in orjson.loads(got_many.content)["data"]["users"]] == USERS
    assert refused.status_code == 401
