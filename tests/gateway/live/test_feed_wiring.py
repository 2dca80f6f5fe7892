"""The lifespan's live-data wiring: with subscriptions (or the cache) on, the change feed is
the resources' (`Resources.change_feed`), the stream readers take the streamed tables'
leases, the metrics are served, and everything is released before the DynamoDB client
closes; `/readyz` names a streamed table that has no stream."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from typing import TYPE_CHECKING

import httpx
import orjson
import pytest

from gateway.app import create_app
from gateway.settings import Settings
from gateway.state import opened_resources
from loaders.live.changes import Change
from loaders.live.streams import lease_key
from loaders.tables import Table, TableNames, create_tables
from support.metrics_text import samples, series, value
from tests.change_recorder import Recorder
from tests.conftest import unique_table_names

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

METRICS = (
    "gateway_change_feed_lag_seconds",
    "gateway_change_feed_connected",
    "gateway_stream_leases_held",
    "gateway_stream_lease_takeovers_total",
    "gateway_stream_records_total",
)


async def test_the_feed_and_readers_live_with_the_lifespan(
    settings: Settings, dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    app = create_app(dataclasses.replace(settings, subscriptions=True, stream_lease_seconds=2))
    recorder = Recorder()
    async with app.router.lifespan_context(app):
        feed = opened_resources(app).change_feed
        assert feed is not None
        assert feed.connected
        feed.listen(recorder)
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
            for _ in range(500):
                found = samples((await client.get("/metrics")).text)
                if (
                    value(found, "gateway_stream_leases_held") == 3
                    and len(series(found, "gateway_change_feed_lag_seconds")) == 3
                ):
                    break
                await asyncio.sleep(0.02)
            await dynamodb.put_item(
                TableName=tables.pave, Item={"PK": {"S": "USERS#w"}, "SK": {"S": "X"}}
            )
            for _ in range(500):
                if Change(Table.PAVE, "USERS#w") in recorder.heard:
                    break
                await asyncio.sleep(0.02)
            found = samples((await client.get("/metrics")).text)
            assert (await client.get("/readyz")).status_code == 200
        assert Change(Table.PAVE, "USERS#w") in recorder.heard
        for name in METRICS:
            assert series(found, name), name
        assert value(found, "gateway_stream_leases_held") == 3
        assert value(found, "gateway_change_feed_connected") == 1
        lags = [labels for labels, _ in series(found, "gateway_change_feed_lag_seconds")]
        assert sorted(lag["table"] for lag in lags) == sorted(
            [tables.pave, tables.income_detection, tables.balance_settings]
        )
        assert all(re.fullmatch(r"shardId-[0-9a-f-]+", lag["shard"]) for lag in lags), lags
        assert value(found, "gateway_stream_records_total") == 1
    # Released on the way out, the DynamoDB client still open to do it.
    answer = await dynamodb.scan(TableName=tables.locks)
    leases = [item for item in answer["Items"] if item["key"]["S"].startswith("insight-gateway:")]
    assert len(leases) == 3
    assert all(item["isReleased"] == {"S": "1"} for item in leases)
    pave = [item for item in leases if item["key"]["S"].startswith(lease_key(tables.pave, ""))]
    assert set(orjson.loads(pave[0]["data"]["B"])) == {"seq"}


async def test_without_subscriptions_nor_cache_nothing_reads_the_streams(
    settings: Settings, dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        assert opened_resources(app).change_feed is None
    answer = await dynamodb.scan(TableName=tables.locks)
    assert answer["Items"] == []


async def test_readyz_names_a_streamed_table_without_a_stream(
    endpoint_url: str, dynamodb: DynamoDBClient, caplog: pytest.LogCaptureFixture
) -> None:
    names = unique_table_names()
    await create_tables(dynamodb, names, streams=False)
    settings = Settings(dynamodb_endpoint_url=endpoint_url, tables=names)
    for subscriptions, status in ((False, 200), (True, 503)):
        app = create_app(dataclasses.replace(settings, subscriptions=subscriptions))
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app)
            async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
                with caplog.at_level(logging.WARNING, logger="gateway.health"):
                    assert (await client.get("/readyz")).status_code == status
    assert f"table {names.pave} has no stream enabled" in caplog.text
