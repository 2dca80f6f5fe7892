"""Apollo Client's BatchHttpLink (npm, tests/clients) against the gateway under uvicorn: three
queries issued together go out as one POST of a JSON array, and each gets its own answer,
with the client's name counted in the field usage."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.cli.demo import ADA, BOB, CY, seed_demo
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.principal import DASHBOARD
from support.fixed_clock import FixedClock
from support.metrics_text import total
from tests.conftest import NOW
from tests.live_server import serve_in_thread

FOLDER = Path(__file__).parent
SECRET = "clients-tests-secret-0123456789abcdef"


@pytest.fixture
def gateway_url(settings: Settings) -> Iterator[str]:
    configured = dataclasses.replace(
        settings,
        auth_hs256_secret=SECRET,
        dynamodb_read_timeout_seconds=30.0,
        request_deadline_seconds=60.0,
    )
    with serve_in_thread(create_app(configured, clock=FixedClock(NOW))) as base_url:
        yield base_url


def run_client(url: str, queries: list[str]) -> list[dict[str, object]]:
    if not (FOLDER / "node_modules" / "@apollo" / "client").is_dir():
        raise RuntimeError("Apollo Client is not installed: run `make` (npm ci)")
    token = mint_token(SECRET, "dash-1", [DASHBOARD], timedelta(hours=1), FixedClock(NOW))
    answer = subprocess.run(
        ["node", "batch.mjs", f"{url}/graphql", token, json.dumps(queries)],
        cwd=FOLDER,
        capture_output=True,
        check=True,
        timeout=120,
    )
    results: list[dict[str, object]] = json.loads(answer.stdout)["results"]
    return results


async def test_batch_http_link_sends_three_queries_in_one_post(
    dynamo: Dynamo, settings: Settings, gateway_url: str
) -> None:
    await seed_demo(dynamo, NOW, settings)
    queries = [
        f'query Alert{n} {{ user(id: "{user}") {{ id alert {{ alertSent }} }} }}'
        for n, user in enumerate((ADA, BOB, CY))
    ]

    results = run_client(gateway_url, queries)

    assert results == [
        {
            "data": {
                "user": {
                    "__typename": "User",
                    "id": ADA,
                    "alert": {"__typename": "BalanceAlert", "alertSent": True},
                }
            }
        },
        {"data": {"user": {"__typename": "User", "id": BOB, "alert": None}}},
        {"data": {"user": {"__typename": "User", "id": CY, "alert": None}}},
    ]
    async with httpx.AsyncClient(timeout=30) as client:
        metrics = (await client.get(f"{gateway_url}/metrics")).text
    # One HTTP request to /graphql carried the three operations.
    assert total(metrics, "gateway_http_requests_total", path="/graphql") == 1
    assert total(metrics, "gateway_graphql_operations_total", outcome="ok") == 3
    assert (
        total(
            metrics,
            "gateway_field_usage_total",
            coordinate="User.alert",
            client="batch-link-test",
            client_version="1.0",
        )
        == 3
    )
