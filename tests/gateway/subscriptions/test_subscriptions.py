"""Subscriptions end to end: a served gateway, a real WebSocket, moto's DynamoDB, changes
published into the in-process change feed (as the stream readers publish them)."""

from __future__ import annotations

import asyncio
from typing import Any

from gateway.settings import Settings
from loaders.live.changes import ShardPosition
from loaders.tables import Table
from support.fixed_clock import FixedClock
from tests.change_recorder import Recorder
from tests.gateway.subscriptions.conftest import (
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
        await live.watch_setting(socket)
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
        await live.watch_setting(socket)
        # A reader's first start is at the stream's latest record: wait until the balance
        # settings' reader has read once (it published its position), so the write follows.
        heard = Recorder()
        live.feed.listen(heard)
        await heard.until(
            lambda each: isinstance(each, ShardPosition) and each.table is Table.BALANCE_SETTINGS,
            within=20,
        )
        await set_low_balance_alert(dynamodb, settings, USER, "35")
        # A lease released by an earlier test's gateway is read from its checkpoint, so that
        # test's write to this user may come first (showing the user as it reads then); the
        # write made here must follow, within the bound.
        messages = [await socket.receive(within=20)]
        async with asyncio.timeout(20):
            while messages[-1]["payload"]["data"]["userChanged"]["lowBalanceAlert"] != "35.00":
                messages.append(await socket.receive())
    for message in messages:
        assert message["id"] == "1"
        assert message["type"] == "next"
        assert message["payload"]["data"]["userChanged"]["id"] == USER
    assert messages[-1]["payload"] == {
        "data": {"userChanged": {"id": USER, "lowBalanceAlert": "35.00"}}
    }
