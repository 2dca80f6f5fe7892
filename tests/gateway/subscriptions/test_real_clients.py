"""Real clients against a served gateway: npm graphql-ws's `createClient` and Apollo Client's
`GraphQLWsLink` (tests/ws_clients, run by node). What each prints is what it received: the
same data a query answers, the new state after a write straight to DynamoDB, FORBIDDEN in its
error sink, the close code 4401."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from gateway.settings import Settings
from loaders.tables import Table
from tests.gateway.subscriptions.conftest import OTHER, USER, LiveGateway, set_low_balance_alert
from tests.ws_clients.node_client import node_client, require_node

VIEWER_CHANGED = "subscription { viewerChanged(initial: true) { id lowBalanceAlert } }"
VIEWER = "{ viewer { id lowBalanceAlert } }"
WATCHED = "u-3"
#: As Apollo Client sends them: its cache adds `__typename` to every selection.
USERS = "query Users($ids: [ID!]!) { users(ids: $ids) { id lowBalanceAlert } }"
USERS_AS_SENT = "query Users($ids: [ID!]!) { users(ids: $ids) { id lowBalanceAlert __typename } }"
USER_CHANGED = (
    "subscription Watch($ids: [ID!]!) { userChanged(ids: $ids, initial: true) "
    "{ id lowBalanceAlert } }"
)


@pytest.fixture(autouse=True)
def node() -> None:
    """Before the gateway starts: without node, skip (fail in CI)."""
    require_node()


async def query(live: LiveGateway, token: str, document: str, **variables: Any) -> Any:
    """What the same gateway answers over HTTP: the `data` the clients' events must equal."""
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.post(
            live.url.replace("ws://", "http://"),
            json={"query": document, "variables": variables},
            headers={"Authorization": f"Bearer {token}"},
        )
    answer = response.json()
    assert response.status_code == 200, answer
    assert "errors" not in answer, answer
    return answer["data"]


async def test_graphql_ws_gets_the_initial_state_then_a_write_made_straight_to_dynamodb(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    token = live.token()
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with node_client("graphql_ws.mjs", url=live.url, token=token, query=VIEWER_CHANGED) as ws:
        initial = await ws.line()
        viewer = (await query(live, token, VIEWER))["viewer"]
        assert initial == {"next": {"data": {"viewerChanged": viewer}}}
        assert viewer == {"id": USER, "lowBalanceAlert": "40.00"}

        await set_low_balance_alert(dynamodb, settings, USER, "65")
        await live.publish(Table.BALANCE_SETTINGS, USER)
        changed = await ws.line()
        viewer = (await query(live, token, VIEWER))["viewer"]
        assert changed == {"next": {"data": {"viewerChanged": viewer}}}
        assert viewer == {"id": USER, "lowBalanceAlert": "65.00"}


async def test_graphql_ws_receives_forbidden_in_its_error_sink_before_any_read(
    live: LiveGateway,
) -> None:
    async with node_client(
        "graphql_ws.mjs",
        url=live.url,
        token=live.token(),  # a frontend token: its own user only
        query=USER_CHANGED,
        variables={"ids": [OTHER]},
    ) as ws:
        received = await ws.line()
    [error] = received["error"]["errors"]
    assert error["extensions"]["code"] == "FORBIDDEN"
    assert live.reads() == []
    assert live.hub.subscriptions == 0


@pytest.mark.parametrize("token", ["not-a-jwt", "expired"])
async def test_graphql_ws_sees_close_code_4401_for_a_bad_token(
    live: LiveGateway, token: str
) -> None:
    sent = live.token(lifetime=-60) if token == "expired" else token
    async with node_client("graphql_ws.mjs", url=live.url, token=sent, query=VIEWER_CHANGED) as ws:
        received = await ws.line()
    assert received["error"]["close"]["code"] == 4401
    assert received["error"]["close"]["reason"].startswith("Unauthorized")
    assert live.reads() == []


async def test_apollo_clients_graphql_ws_link_answers_a_query_then_a_subscription(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    token = live.dashboard()
    ids = [USER, WATCHED]
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with node_client(
        "apollo.mjs",
        url=live.url,
        token=token,
        query=USERS,
        subscription=USER_CHANGED,
        variables={"ids": ids},
    ) as apollo:
        # The query, through the same link (the socket), answers what HTTP answers.
        users = (await query(live, token, USERS_AS_SENT, ids=ids))["users"]
        assert await apollo.line() == {"query": {"users": users}}
        assert users == [
            {"id": USER, "lowBalanceAlert": "40.00", "__typename": "User"},
            {"id": WATCHED, "lowBalanceAlert": None, "__typename": "User"},
        ]
        # `initial: true`: each id's current state, in either order.
        initial = [await apollo.line(), await apollo.line()]
        assert sorted(initial, key=lambda line: line["next"]["data"]["userChanged"]["id"]) == [
            {"next": {"data": {"userChanged": user}}} for user in users
        ]

        await set_low_balance_alert(dynamodb, settings, WATCHED, "12")
        await live.publish(Table.BALANCE_SETTINGS, WATCHED)
        changed = await apollo.line()
        users = (await query(live, token, USERS_AS_SENT, ids=ids))["users"]
        assert changed == {"next": {"data": {"userChanged": users[1]}}}
        assert users[1]["lowBalanceAlert"] == "12.00"
