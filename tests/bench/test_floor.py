"""`trivial, floor` (bench/server.py): the bearer token verified as the gateway verifies it,
then the very bytes the gateway answers `{ __typename }` with."""

from __future__ import annotations

import dataclasses

import httpx
from starlette.applications import Starlette
from starlette.routing import Route

from bench.server import FloorEndpoint
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import SECRET, gateway_client, tokens


async def test_the_floor_writes_the_gateways_bytes_for_a_valid_token_only(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    headers = {"Authorization": f"Bearer {tokens(clock)['end user']()}"}
    body = {"query": "{ __typename }"}
    async with gateway_client(settings, dynamo, clock) as gateway:
        want = await gateway.post("/graphql", json=body, headers=headers)
    floor = FloorEndpoint(dataclasses.replace(settings, auth_hs256_secret=SECRET), clock)
    app = Starlette(routes=[Route("/bench/floor", floor.respond, methods=["POST"])])
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://floor"
    ) as client:
        got = await client.post("/bench/floor", json=body, headers=headers)
        refused = await client.post("/bench/floor", json=body, headers={"Authorization": "x"})
    assert (got.status_code, got.content) == (200, want.content)
    assert got.headers["content-type"] == want.headers["content-type"]
    assert refused.status_code == 401
