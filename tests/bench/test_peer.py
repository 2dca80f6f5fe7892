"""The Node peer (bench/peers/apollo/) answers as the gateway does: the frontend query for a
bench user and the edge users (yesterday's payday, expired rows, ties, odd decimals, an
unknown id), and a dashboard of every User field over them (a duplicate and ids with no
rows included): what `python -m bench peer` checks before it times anything."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from bench import processes
from bench.peer import EDGE_USERS, differences, frontend_answer, peer, peer_ready, seed_edges
from bench.run import common_env, table_names
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import create_tables
from support.dynalite_server import DynaliteServer
from support.seed import seed_users
from tests.conftest import open_test_client

USER = "bench-000"


@pytest.fixture(scope="module")
def dynalite() -> Iterator[str]:
    reason = None
    if shutil.which("node") is None:
        reason = "node is not on PATH"
    elif not peer_ready():
        reason = "bench/peers/apollo/node_modules is absent (`make pytest` runs npm ci there)"
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    server = DynaliteServer()
    server.start()
    yield server.endpoint_url
    server.stop()


async def _seed(endpoint: str) -> None:
    now = datetime.now(UTC)
    async with open_test_client(endpoint) as client:
        await create_tables(client, table_names(), ttl=False, streams=False)
        await seed_users(Dynamo(client, table_names()), [USER], now, Settings())
    await seed_edges(endpoint, now)


def test_the_peer_answers_as_the_gateway_does(dynalite: str) -> None:
    asyncio.run(_seed(dynalite))
    ports = {"gateway": processes.free_port(), "peer": processes.free_port()}
    env = common_env(dynalite)
    with (
        processes.running(processes.gateway(ports["gateway"]), ports["gateway"], env),
        peer(ports["peer"], dynalite),
    ):
        urls = {name: f"http://127.0.0.1:{port}/graphql" for name, port in ports.items()}
        found = asyncio.run(differences(urls["gateway"], urls["peer"], [USER, *EDGE_USERS]))
        ties = asyncio.run(_answer(urls["peer"], "edge-ties"))
    assert found == []
    # The answers compared are real ones: the ties user's expenses, in the contract's order.
    expenses = ties["data"]["viewer"]["recurringExpenses"]
    assert [(e["merchantName"], e["amount"]) for e in expenses] == [
        ("Zed", "4.00"),
        ("Alpha", "3.00"),
        ("Same", "1.00"),
        ("Same", "2.00"),
    ]


async def _answer(url: str, user_id: str) -> Any:
    async with aiohttp.ClientSession() as http:
        return await frontend_answer(http, url, user_id)
