"""The bench's cached gateway: its heartbeat keeps the change feed whole, so the cache is
used (a gateway without it bypasses the cache: no position was ever heard)."""

from __future__ import annotations

import asyncio

import pytest
from types_aiobotocore_dynamodb import DynamoDBClient

from bench.server import create_bench_app
from gateway.settings import Settings
from gateway.state import opened_resources
from loaders.live.feed_watch import NO_POSITION
from loaders.tables import TableNames, create_tables
from tests.conftest import unique_table_names


@pytest.fixture
async def tables(dynamodb: DynamoDBClient) -> TableNames:
    """Without streams, as dynalite's tables in the bench: only the heartbeat publishes."""
    names = unique_table_names()
    await create_tables(dynamodb, names, streams=False)
    return names


@pytest.mark.parametrize("heartbeat", [True, False])
async def test_the_heartbeat_keeps_the_feed_whole(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, heartbeat: bool
) -> None:
    assert settings.dynamodb_endpoint_url is not None
    monkeypatch.setenv("INSIGHT_DYNAMODB_ENDPOINT_URL", settings.dynamodb_endpoint_url)
    monkeypatch.setenv("INSIGHT_CACHE", "on")
    monkeypatch.setenv("BENCH_FEED_HEARTBEAT", "1" if heartbeat else "0")
    app = create_bench_app()
    async with app.router.lifespan_context(app):
        cache = opened_resources(app).cache
        assert cache is not None
        for _ in range(100):
            if cache.bypass_reason() is None:
                break
            await asyncio.sleep(0.02)
        assert cache.bypass_reason() == (None if heartbeat else NO_POSITION)
