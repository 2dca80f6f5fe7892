"""A gateway with the coherent cache on, over the suite's moto tables, and its feed."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
from starlette.applications import Starlette

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from gateway.state import opened_resources
from loaders.cache import STREAMED_TABLES, CoherentCache
from loaders.live.changes import Change, ChangeFeed, ShardPosition
from loaders.tables import Table
from schema.principal import DASHBOARD, WRITER
from support.fixed_clock import FixedClock
from support.metrics_text import Samples, samples

SECRET = "cache-tests-secret-0123456789abcdef"


@dataclass
class CachedGateway:
    app: Starlette
    client: httpx.AsyncClient
    feed: ChangeFeed
    clock: FixedClock

    @property
    def cache(self) -> CoherentCache:
        cache = opened_resources(self.app).cache
        assert cache is not None
        return cache

    def token(self, sub: str = "dash-1", roles: tuple[str, ...] = (DASHBOARD,)) -> str:
        return mint_token(SECRET, sub, list(roles), timedelta(hours=1), self.clock)

    async def read(
        self, query: str, variables: dict[str, Any] | None = None, token: str | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """The answer's `data` (no errors allowed) and its `extensions.cost`."""
        answer = await self.client.post(
            "/graphql",
            json={"query": query, "variables": variables or {}},
            headers={"Authorization": f"Bearer {token or self.token()}", "X-Insight-Cost": "1"},
        )
        body = answer.json()
        assert "errors" not in body, body
        return body["data"], body["extensions"]["cost"]

    async def write(self, mutation: str, variables: dict[str, Any]) -> Any:
        writer = self.token("writer-1", (WRITER,))
        data, _ = await self.read(mutation, variables, writer)
        return data

    async def positions(self, behind: float = 0.0) -> None:
        """A position for one shard of each streamed table, `behind` seconds ago."""
        for table in STREAMED_TABLES:
            shard = f"shard-{table.value}"
            await self.feed.publish_position(ShardPosition(table, shard, time.time() - behind))

    async def changed(self, table: Table, pk: str) -> None:
        await self.feed.publish([Change(table, pk)])

    async def metrics(self) -> Samples:
        return samples((await self.client.get("/metrics")).text)


@asynccontextmanager
async def cached_gateway(
    settings: Settings, clock: FixedClock, *, positions: bool = True, **overrides: Any
) -> AsyncIterator[CachedGateway]:
    """The app with INSIGHT_CACHE on (lag allowed: a minute, so a loaded machine never
    bypasses by accident), its lifespan run, every streamed shard's position published."""
    configured = dataclasses.replace(
        settings,
        auth_hs256_secret=SECRET,
        cache=True,
        cache_max_lag_seconds=60.0,
        **overrides,
    )
    app = create_app(configured, clock=clock)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://gateway") as client,
    ):
        feed = opened_resources(app).change_feed
        assert feed is not None
        gateway = CachedGateway(app, client, feed, clock)
        if positions:
            await gateway.positions()
        yield gateway
