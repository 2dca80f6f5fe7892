"""The subscriptions' part of the lifespan: the hub on the change feed, its budgets and
metrics, and the Context of each re-read."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import strawberry
from starlette.applications import Starlette

from gateway.observability.subscription_metrics import SubscriptionMetrics
from gateway.protection.rate_limit import Budgets
from gateway.resources import app_context
from gateway.settings import Settings
from loaders.changes import ChangeFeed
from loaders.deadline import start_deadline
from loaders.errors import GatewayError
from schema.clock import Clock
from schema.context import Context
from schema.live import Charge, LiveHub
from schema.principal import Principal

#: How long an event waits when the budgets' storage is down and the gateway fails closed.
STORAGE_DOWN_WAIT_SECONDS = 1.0


def budget_charge(budgets: Budgets) -> Charge:
    """Each re-read charged to its subscriber: 0 when charged, else the seconds to wait."""

    async def charge(principal: Principal, cost: int) -> float:
        try:
            outcome = await budgets.charge(principal, cost)
        except GatewayError:
            return STORAGE_DOWN_WAIT_SECONDS
        return 0.0 if outcome.allowed else float(outcome.retry_after)

    return charge


@asynccontextmanager
async def open_subscriptions(
    app: Starlette,
    *,
    settings: Settings,
    schema: strawberry.Schema,
    clock: Clock,
    budgets: Budgets,
    metrics: SubscriptionMetrics,
) -> AsyncIterator[LiveHub]:
    """The hub listening to `app.state.change_feed`, as `app.state.live`, until the block
    ends. Needs `app.state.dynamo` (opened before it)."""

    def reread_context(principal: Principal) -> Context:
        # Its own deadline, in the re-read's own task, as every HTTP request has.
        start_deadline(settings.request_deadline_seconds)
        # Strongly consistent: it skips the coherent cache, and refreshes it.
        return app_context(
            app.state,
            principal=principal,
            clock=clock,
            request_id=f"live-{uuid.uuid4().hex}",
            consistent=True,
        )

    # Opened before, by the live data's lifespan (gateway/live): the stream readers' feed.
    feed: ChangeFeed = app.state.change_feed
    hub = LiveHub(
        schema, reread_context, clock=clock, charge=budget_charge(budgets), observer=metrics
    )
    metrics.count_subscriptions(lambda: hub.subscriptions)
    stop_listening = feed.listen(hub)
    hub.start()
    app.state.live = hub
    try:
        yield hub
    finally:
        del app.state.live
        stop_listening()
        await hub.close()
