"""Subscriptions end to end: a served gateway, a real WebSocket, moto's DynamoDB, changes
published into the in-process change feed (as the stream readers publish them)."""

from __future__ import annotations

from typing import Any

from gateway.settings import Settings
from loaders.tables import Table
from tests.gateway.subscriptions.conftest import (
    SETTING_QUERY,
    USER,
    LiveGateway,
    set_low_balance_alert,
)
from tests.gateway.subscriptions.socket_client import open_socket


async def test_a_write_straight_to_dynamodb_reaches_the_subscriber(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        await set_low_balance_alert(dynamodb, settings, USER, "25")
        await live.publish(Table.BALANCE_SETTINGS, USER)
        message = await socket.receive()
        assert message == {
            "id": "1",
            "type": "next",
            "payload": {"data": {"userChanged": {"id": USER, "lowBalanceAlert": "25.00"}}},
        }
