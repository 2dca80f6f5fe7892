"""Real clients over the live HTTP transports: npm graphql-sse's `createClient` (distinct
connections) and Apollo Client's HttpLink (multipart subscriptions), run by node
(tests/ws_clients). What each prints is what it received: the current state, then the new
one after a write made straight to DynamoDB."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.settings import Settings
from loaders.tables import Table
from tests.gateway.subscriptions.conftest import USER, LiveGateway, set_low_balance_alert
from tests.ws_clients.node_client import node_client, require_node

VIEWER_CHANGED = "subscription { viewerChanged(initial: true) { id lowBalanceAlert } }"
RESUMED = "subscription { viewerChanged { id lowBalanceAlert } }"


@pytest.fixture(autouse=True)
def node() -> None:
    require_node()


def viewer(dollars: str, **typename: str) -> dict[str, Any]:
    """The subscription's data (Apollo's cache adds `__typename` to the selection)."""
    return {"viewerChanged": {**typename, "id": USER, "lowBalanceAlert": f"{dollars}.00"}}


APOLLO = {"__typename": "User"}


def http_url(live: LiveGateway) -> str:
    return live.url.replace("ws://", "http://")


async def write(live: LiveGateway, dynamodb: Any, settings: Settings, dollars: str) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, dollars)
    await live.publish(Table.BALANCE_SETTINGS, USER)


async def test_graphql_sse_gets_the_state_then_a_write_made_straight_to_dynamodb(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with node_client(
        "graphql_sse.mjs", url=http_url(live), token=live.token(), query=VIEWER_CHANGED
    ) as client:
        initial = await client.line()
        await live.subscribed()
        await write(live, dynamodb, settings, "65")
        changed = await client.line()
    assert initial == {"next": {"data": viewer("40")}}
    assert changed == {"next": {"data": viewer("65")}}


async def test_apollo_http_link_gets_a_multipart_subscription_and_resumes_it(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with node_client(
        "apollo_http.mjs", url=http_url(live), token=live.token(), subscription=VIEWER_CHANGED
    ) as client:
        initial = await client.line()
        await live.subscribed()
        await write(live, dynamodb, settings, "65")
        changed = await client.line()
    assert initial["next"]["data"] == viewer("40", **APOLLO)
    assert changed["next"]["data"] == viewer("65", **APOLLO)
    seen = changed["next"]["eventId"]
    assert isinstance(seen, str)

    # Back with the id it last saw, the state changed while it was away: that state first
    # (the operation asks for no initial state: only the resume sends it), then the next.
    await set_low_balance_alert(dynamodb, settings, USER, "55")
    async with node_client(
        "apollo_http.mjs",
        url=http_url(live),
        token=live.token(),
        subscription=RESUMED,
        lastEventId=seen,
    ) as client:
        missed = await client.line()
        await live.subscribed()
        await write(live, dynamodb, settings, "70")
        after = await client.line()
    assert missed["next"]["data"] == viewer("55", **APOLLO)
    assert after["next"]["data"] == viewer("70", **APOLLO)
