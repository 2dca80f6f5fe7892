"""Subscriptions end to end: a served gateway, a real WebSocket, moto's DynamoDB, changes
published into the in-process change feed (as the stream readers publish them)."""

from __future__ import annotations

import asyncio
from typing import Any

from gateway.settings import Settings
from loaders.tables import Table
from schema.clock import FixedClock
from tests.gateway.subscriptions.conftest import (
    SETTING_QUERY,
    USER,
    LiveGateway,
    live_gateway,
    set_low_balance_alert,
)
from tests.gateway.subscriptions.socket_client import open_socket


async def test_a_write_straight_to_dynamodb_reaches_the_subscriber(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        await live.subscribed()
        await set_low_balance_alert(dynamodb, settings, USER, "25")
        await live.publish(Table.BALANCE_SETTINGS, USER)
        message = await socket.receive()
        assert message == {
            "id": "1",
            "type": "next",
            "payload": {"data": {"userChanged": {"id": USER, "lowBalanceAlert": "25.00"}}},
        }


async def test_through_the_tables_stream_with_nothing_published_by_hand(
    settings: Settings, clock: FixedClock, dynamodb: Any
) -> None:
    """The whole path: a write straight to DynamoDB, moto's stream, the stream reader, the
    change feed, the hub, the socket."""
    async with live_gateway(settings, clock, streams=True) as live, open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        await live.subscribed()
        # The readers start at the stream's latest record: wait until they hold the shard.
        for _ in range(500):
            if live.app.state.live_data.coordinator.held:
                break
            await asyncio.sleep(0.02)
        await set_low_balance_alert(dynamodb, settings, USER, "35")
        message = await socket.receive(within=20)
    assert message == {
        "id": "1",
        "type": "next",
        "payload": {"data": {"userChanged": {"id": USER, "lowBalanceAlert": "35.00"}}},
    }
