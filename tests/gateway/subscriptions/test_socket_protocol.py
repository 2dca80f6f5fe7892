"""The socket's protection and the protocol's close codes: every bad input is refused with
the code graphql-transport-ws gives it, and never crashes the server."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.routing import Route
from websockets.exceptions import InvalidStatus

from gateway.http.graphql_view import GatewayGraphQL
from gateway.settings import Settings
from support.fixed_clock import FixedClock
from tests.gateway.subscriptions.conftest import (
    OTHER,
    SETTING_QUERY,
    USER,
    LiveGateway,
    live_gateway,
)
from tests.gateway.subscriptions.socket_client import open_socket


def view_of(live: LiveGateway) -> GatewayGraphQL:
    return next(
        route.endpoint
        for route in live.app.routes
        if isinstance(route, Route) and isinstance(route.endpoint, GatewayGraphQL)
    )


async def test_no_token_closes_with_4401(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        await socket.send({"type": "connection_init", "payload": {}})
        code, reason = await socket.closed()
    assert code == 4401
    assert reason.startswith("Unauthorized: A bearer token is required")


@pytest.mark.parametrize(
    "token",
    ["not-a-jwt", "expired"],
)
async def test_a_bad_or_expired_token_closes_with_4401(live: LiveGateway, token: str) -> None:
    sent = live.token(lifetime=-60) if token == "expired" else token
    async with open_socket(live.url) as socket:
        await socket.send(
            {"type": "connection_init", "payload": {"Authorization": f"Bearer {sent}"}}
        )
        code, _ = await socket.closed()
    assert code == 4401


async def test_the_upgrade_requests_header_carries_the_token(live: LiveGateway) -> None:
    headers = {"Authorization": f"Bearer {live.token()}"}
    async with open_socket(live.url, headers=headers) as socket:
        assert await socket.init(None) == {"type": "connection_ack"}


async def test_the_tokens_expiry_closes_the_socket_with_4401(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token(lifetime=1)) == {"type": "connection_ack"}
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        code, reason = await socket.closed(within=15)
    assert (code, reason) == (4401, "Unauthorized: the bearer token has expired")
    # The subscription went with the socket.
    assert live.hub.subscriptions == 0


async def test_subscribe_before_the_ack_closes_with_4401(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        code, _ = await socket.closed()
    assert code == 4401
    assert live.reads() == []


async def test_a_duplicate_id_closes_with_4409(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        code, reason = await socket.closed()
    assert (code, reason) == (4409, "Subscriber for 1 already exists")


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "hello"}, 4400),
        ("not json", 4400),
        ({"id": "1", "type": "subscribe"}, 4400),
        ({"id": "1", "type": "subscribe", "payload": {"query": 42}}, 4400),
        (
            {
                "id": "1",
                "type": "subscribe",
                "payload": {"query": "{ viewer { id } }", "variables": []},
            },
            4400,
        ),
        ({"id": 1, "type": "subscribe", "payload": {"query": "{ viewer { id } }"}}, 4400),
        ({"type": "connection_init", "payload": "a string"}, 4400),
    ],
)
async def test_bad_messages_close_with_4400(
    live: LiveGateway, message: dict[str, Any] | str, code: int
) -> None:
    async with open_socket(live.url) as socket:
        if not (isinstance(message, dict) and message.get("type") == "connection_init"):
            await socket.init(live.token())
        await socket.send(message)
        closed, _ = await socket.closed()
    assert closed == code


async def test_a_second_connection_init_closes_with_4429(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        await socket.send({"type": "connection_init", "payload": {}})
        code, _ = await socket.closed()
    assert code == 4429


async def test_no_connection_init_in_time_closes_with_4408(live: LiveGateway) -> None:
    view_of(live).init_wait_seconds = 0.3
    async with open_socket(live.url) as socket:
        code, _ = await socket.closed()
    assert code == 4408


async def test_an_oversized_frame_closes_with_1009(settings: Settings, clock: FixedClock) -> None:
    async with (
        live_gateway(settings, clock, max_body_bytes=4096) as live,
        open_socket(live.url) as socket,
    ):
        await socket.init(live.token())
        padding = " " * 5000
        await socket.subscribe("1", SETTING_QUERY + padding, {"ids": [USER]})
        code, _ = await socket.closed()
    assert code == 1009


async def test_the_legacy_graphql_ws_subprotocol_is_refused(live: LiveGateway) -> None:
    async with open_socket(live.url, subprotocols=["graphql-ws"]) as socket:
        code, _ = await socket.closed()
    assert code == 4406


async def test_with_subscriptions_off_the_handshake_is_refused(
    settings: Settings, clock: FixedClock
) -> None:
    async with live_gateway(settings, clock, subscriptions=False) as live:
        with pytest.raises(InvalidStatus) as refused:
            async with open_socket(live.url):
                pass
    assert refused.value.response.status_code == 403


@pytest.mark.parametrize("method", ["POST", "GET"])
async def test_a_subscription_over_http_is_a_coded_400(live: LiveGateway, method: str) -> None:
    url = live.url.replace("ws://", "http://")
    headers = {"Authorization": f"Bearer {live.token()}", "Accept": "application/json"}
    query = "subscription { viewerChanged { id } }"
    async with httpx.AsyncClient() as client:
        if method == "POST":
            response = await client.post(url, json={"query": query}, headers=headers)
        else:
            response = await client.get(url, params={"query": query}, headers=headers)
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert "WebSocket" in error["message"]


async def test_beyond_the_bound_a_subscribe_gets_an_error_and_the_socket_stays(
    settings: Settings, clock: FixedClock
) -> None:
    async with (
        live_gateway(settings, clock, subscriptions_max_per_connection=2) as live,
        open_socket(live.url) as socket,
    ):
        await socket.init(live.token())
        for operation_id in ("1", "2", "3"):
            await socket.subscribe(operation_id, SETTING_QUERY, {"ids": [USER]})
        refused = await socket.receive()
        assert refused["id"] == "3"
        assert refused["type"] == "error"
        assert refused["payload"][0]["message"].startswith("Subscription limit reached")
        # Completing one frees a place.
        await socket.send({"id": "1", "type": "complete"})
        await socket.subscribe("4", "{ viewer { id } }")
        assert await socket.receive() == {
            "id": "4",
            "type": "next",
            "payload": {"data": {"viewer": {"id": USER}}},
        }


async def test_an_operation_that_completed_or_failed_frees_its_place(
    settings: Settings, clock: FixedClock
) -> None:
    # GHSA-m952-2w3f-6r8h's case: a completed operation kept its place, and a socket at its
    # bound refused every later `subscribe`.
    async with (
        live_gateway(settings, clock, subscriptions_max_per_connection=1) as live,
        open_socket(live.url) as socket,
    ):
        await socket.init(live.token())
        for operation_id in ("1", "2"):
            await socket.subscribe(operation_id, "{ viewer { id } }")
            assert (await socket.receive())["type"] == "next"
            assert await socket.receive() == {"id": operation_id, "type": "complete"}
        await socket.subscribe("3", "{ viewer { nope } }")
        failed = await socket.receive()
        assert (failed["id"], failed["type"]) == ("3", "error")
        await socket.subscribe("4", "{ viewer { id } }")
        assert await socket.receive() == {
            "id": "4",
            "type": "next",
            "payload": {"data": {"viewer": {"id": USER}}},
        }


async def test_another_users_id_is_forbidden_before_any_read(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER, OTHER]})
        refused = await socket.receive()
    assert refused["type"] == "error"
    assert [error["extensions"]["code"] for error in refused["payload"]] == ["FORBIDDEN"]
    assert live.reads() == []
    assert live.hub.subscriptions == 0


@pytest.mark.parametrize("count", [0, 101])
async def test_one_to_a_hundred_ids(live: LiveGateway, count: int) -> None:
    async with open_socket(live.url) as socket:
        await socket.init(live.dashboard())
        await socket.subscribe("1", SETTING_QUERY, {"ids": [f"u-{i}" for i in range(count)]})
        refused = await socket.receive()
    assert refused["type"] == "error"
    assert refused["payload"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_the_query_limits_apply_to_subscription_documents(
    settings: Settings, clock: FixedClock
) -> None:
    async with (
        live_gateway(settings, clock, max_query_depth=1) as live,
        open_socket(live.url) as socket,
    ):
        await socket.init(live.token())
        await socket.subscribe("1", "subscription { viewerChanged { alert { alertSent } } }")
        refused = await socket.receive()
    assert refused["type"] == "error"
    assert refused["payload"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"


async def test_queries_and_mutations_over_the_socket_get_the_http_checks(
    live: LiveGateway,
) -> None:
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        await socket.subscribe("1", '{ user(id: "u-2") { id } }')
        answer = await socket.receive()
        assert answer["type"] == "next"
        assert answer["payload"]["data"] == {"user": None}
        assert answer["payload"]["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        assert await socket.receive() == {"id": "1", "type": "complete"}
        await socket.subscribe(
            "2", 'mutation { markInsightsRefresh(input: {userId: "u-1"}) { label } }'
        )
        answer = await socket.receive()
        assert answer["payload"]["errors"][0]["extensions"]["code"] == "FORBIDDEN"


LISTED_SUBSCRIPTION = "subscription Mine { viewerChanged(initial: true) { id lowBalanceAlert } }"


async def test_trusted_documents_apply_to_subscriptions(
    settings: Settings, clock: FixedClock, tmp_path: Path
) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"doc-1": LISTED_SUBSCRIPTION}))
    async with (
        live_gateway(
            settings, clock, trusted_documents="enforce", trusted_documents_file=str(manifest)
        ) as live,
        open_socket(live.url) as socket,
    ):
        await socket.init(live.token())
        await socket.subscribe("1", "subscription { viewerChanged(initial: true) { id } }")
        refused = await socket.receive()
        assert refused["type"] == "error"
        assert refused["payload"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_IN_LIST"
        await socket.send({"id": "2", "type": "subscribe", "payload": {"documentId": "doc-1"}})
        served = await socket.receive()
    assert served == {
        "id": "2",
        "type": "next",
        "payload": {"data": {"viewerChanged": {"id": USER, "lowBalanceAlert": None}}},
    }
    assert len(live.reads()) == 1


async def test_a_shutdown_closes_open_sockets_and_their_subscriptions(
    settings: Settings, clock: FixedClock
) -> None:
    async with AsyncExitStack() as sockets:
        async with live_gateway(settings, clock) as live:
            socket = await sockets.enter_async_context(open_socket(live.url))
            await socket.init(live.token())
            await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
            hub = live.hub
            for _ in range(100):
                if hub.subscriptions:
                    break
                await asyncio.sleep(0.02)
            assert hub.subscriptions == 1
            # The server stops here, with the socket open.
        code, _ = await socket.closed()
    assert code == 1012
    assert hub.subscriptions == 0


async def test_an_acknowledged_socket_is_pinged(live: LiveGateway) -> None:
    view_of(live).keep_alive_interval = 0.2
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        raw = await asyncio.wait_for(socket.connection.recv(), 10)
    assert json.loads(raw) == {"type": "ping"}


async def test_queries_over_the_socket_are_charged_to_the_budget(
    settings: Settings, clock: FixedClock
) -> None:
    async with (
        live_gateway(settings, clock, rate_limit_user="1/minute") as live,
        open_socket(live.url) as socket,
    ):
        await socket.init(live.token())
        await socket.subscribe("1", "{ viewer { id } }")
        assert (await socket.receive())["payload"] == {"data": {"viewer": {"id": USER}}}
        assert await socket.receive() == {"id": "1", "type": "complete"}
        await socket.subscribe("2", "{ viewer { id } }")
        refused = await socket.receive()
    assert refused["payload"]["data"] is None
    assert refused["payload"]["errors"][0]["extensions"]["code"] == "RATE_LIMITED"


async def test_browser_origins_are_those_cors_allows(settings: Settings, clock: FixedClock) -> None:
    allowed = "https://dashboard.example"
    async with live_gateway(settings, clock, cors_origins=(allowed,)) as live:
        async with open_socket(live.url, headers={"Origin": allowed}) as socket:
            assert await socket.init(live.token()) == {"type": "connection_ack"}
        with pytest.raises(InvalidStatus) as refused:
            async with open_socket(live.url, headers={"Origin": "https://elsewhere.example"}):
                pass
    assert refused.value.response.status_code == 403
