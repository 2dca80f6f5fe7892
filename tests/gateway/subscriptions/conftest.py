from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from gateway.state import opened_resources
from loaders.dynamodb import FinishedCall
from loaders.live.changes import Change, MemoryChangeFeed
from loaders.tables import Table
from schema.live import LiveHub
from schema.principal import DASHBOARD, WRITER
from support.fixed_clock import FixedClock
from support.metrics_text import Samples, samples
from tests.gateway.subscriptions.socket_client import Socket, serving

SECRET = "live-tests-secret-0123456789abcdef"
USER = "u-1"
OTHER = "u-2"

SETTING_QUERY = "subscription($ids: [ID!]!) { userChanged(ids: $ids) { id lowBalanceAlert } }"


@dataclass
class LiveGateway:
    """A served gateway with subscriptions on: its URL, app, and every DynamoDB call."""

    url: str
    app: Starlette
    clock: FixedClock
    calls: list[FinishedCall]

    @property
    def feed(self) -> MemoryChangeFeed:
        feed = opened_resources(self.app).change_feed
        assert isinstance(feed, MemoryChangeFeed)
        return feed

    @property
    def hub(self) -> LiveHub:
        hub = opened_resources(self.app).live
        assert hub is not None
        return hub

    def token(self, sub: str = USER, *roles: str, lifetime: float = 3600) -> str:
        return mint_token(SECRET, sub, roles, timedelta(seconds=lifetime), self.clock)

    def dashboard(self) -> str:
        return self.token("dash-1", DASHBOARD)

    def writer(self) -> str:
        return self.token("svc-1", WRITER)

    def reads(self) -> list[FinishedCall]:
        return [call for call in self.calls if call.operation in ("batch_get_item", "query")]

    async def subscribed(self, count: int = 1) -> None:
        """Wait until the hub holds `count` subscriptions (a subscribe is handled on the
        server's own time: a change published before it is registered would be missed)."""
        for _ in range(500):
            if self.hub.subscriptions >= count:
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"{self.hub.subscriptions} subscriptions, not {count}")

    async def metrics(self) -> Samples:
        """The served app's `/metrics`, scraped over HTTP."""
        url = self.url.replace("ws://", "http://").replace("/graphql", "/metrics")
        async with httpx.AsyncClient() as client:
            return samples((await client.get(url, timeout=10)).text)

    async def watch_setting(self, socket: Socket, operation_id: str = "1") -> None:
        """Over `socket`: the handshake with the user's token, then a subscription of the
        user's `lowBalanceAlert` (`SETTING_QUERY`), held by the hub before this returns."""
        assert await socket.init(self.token()) == {"type": "connection_ack"}
        await socket.subscribe(operation_id, SETTING_QUERY, {"ids": [USER]})
        await self.subscribed()

    async def publish(self, table: Table, partition_key: str) -> None:
        await self.feed.publish([Change(table, partition_key)])


async def set_low_balance_alert(
    dynamodb: Any, settings: Settings, user_id: str, dollars: str
) -> None:
    """A write straight to DynamoDB, as another service makes it."""
    await dynamodb.put_item(
        TableName=settings.tables.balance_settings,
        Item={"user_id": {"S": user_id}, "low_balance_alert": {"N": dollars}},
    )


@pytest.fixture
async def live(settings: Settings, clock: FixedClock) -> AsyncIterator[LiveGateway]:
    async with live_gateway(settings, clock) as gateway:
        yield gateway


def live_settings(settings: Settings, **overrides: Any) -> Settings:
    given: dict[str, Any] = {
        "auth_hs256_secret": SECRET,
        "auth_leeway_seconds": 0,
        "subscriptions": True,
        **overrides,
    }
    return dataclasses.replace(settings, **given)


@asynccontextmanager
async def live_gateway(
    settings: Settings, clock: FixedClock, *, streams: bool = False, **overrides: Any
) -> AsyncIterator[LiveGateway]:
    """The gateway served with subscriptions on. Without `streams`, its stream readers are
    stopped once it has started, so that only the changes a test publishes reach the hub
    (and its DynamoDB calls are the subscriptions' own)."""
    app = create_app(live_settings(settings, **overrides), clock=clock)
    calls: list[FinishedCall] = []
    async with serving(app) as url:
        resources = opened_resources(app)
        if not streams and resources.live_data is not None:
            await resources.live_data.coordinator.stop()
        resources.dynamo.observers.append(calls.append)
        yield LiveGateway(url, app, clock, calls)
