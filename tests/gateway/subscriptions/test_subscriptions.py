"""Subscriptions end to end: a served gateway, a real WebSocket, moto's DynamoDB, changes
published into the in-process change feed (as the stream readers publish them)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from gateway.settings import Settings
from loaders.changes import Change, ShardPosition
from loaders.tables import Table
from schema.clock import FixedClock
from tests.gateway.subscriptions.conftest import (
    USER,
    LiveGateway,
    live_gateway,
    set_low_balance_alert,
)
from tests.gateway.subscriptions.socket_client import open_socket


class PositionHeard:
    """A listener on the change feed: set once a table's reader has published a position
    (it has read its shard once)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.heard = asyncio.Event()

    def changes(self, changes: Sequence[Change]) -> None:
        pass

    def position(self, position: ShardPosition) -> None:
        if position.table is self.table:
            self.heard.set()

    def resync(self, reason: str) -> None:
        pass

    def disconnected(self) -> None:
        pass


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
        read_once = PositionHeard(Table.BALANCE_SETTINGS)
        live.feed.listen(read_once)
        await asyncio.wait_for(read_once.heard.wait(), 20)
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
