"""`open_subscriptions`, the subscriptions' part of the lifespan: the hub on the change
feed, its budgets and metrics, and the Context of each re-read."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import strawberry

from gateway.observability.subscription_metrics import SubscriptionMetrics
from gateway.protection.rate_limit import Budgets
from gateway.settings.service import ServiceSettings
from gateway.state import Resources, app_context
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
    resources: Resources,
    *,
    settings: ServiceSettings,
    schema: strawberry.Schema,
    clock: Clock,
    budgets: Budgets,
    metrics: SubscriptionMetrics,
) -> AsyncIterator[LiveHub]:
    """The hub listening to the resources' change feed until the block ends; its re-reads
    read through the resources (opened before it)."""

    def reread_context(principal: Principal) -> Context:
        # Its own deadline, as every HTTP request has; strongly consistent: it skips the
        # coherent cache, and refreshes it.
        return app_context(
            resources,
            principal=principal,
            clock=clock,
            request_id=f"live-{uuid.uuid4().hex}",
            deadline_seconds=settings.request_deadline_seconds,
            reread=True,
        )

    # Opened before, by the live data's lifespan (feed_wiring.py): the stream readers' feed.
    feed = resources.change_feed
    assert feed is not None, "the live data opens before the subscriptions"
    hub = LiveHub(
        schema, reread_context, clock=clock, charge=budget_charge(budgets), observer=metrics
    )
    metrics.count_subscriptions(lambda: hub.subscriptions)
    stop_listening = feed.listen(hub)
    hub.start()
    try:
        yield hub
    finally:
        stop_listening()
        await hub.close()
