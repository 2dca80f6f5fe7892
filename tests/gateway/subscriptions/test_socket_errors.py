"""Errors sent over the socket are coded, counted and logged as HTTP's are:
`gateway_graphql_errors_total` moves by the codes the client read in `error` messages and in
`next` messages' `errors`, the HTTP answers and the socket's count into the same series, and
the socket's log lines carry its request id."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

import httpx
import pytest

from gateway.observability.logs import RequestIdFilter
from gateway.settings import Settings
from support.fixed_clock import FixedClock
from support.metrics_text import by_label
from tests.gateway.subscriptions.conftest import (
    OTHER,
    SETTING_QUERY,
    USER,
    LiveGateway,
    live_gateway,
)
from tests.gateway.subscriptions.socket_client import Socket, open_socket

ERRORS = "gateway_graphql_errors_total"


async def error_counts(live: LiveGateway) -> Counter[str]:
    found = by_label(await live.metrics(), ERRORS, "code")
    return Counter({code: int(count) for code, count in found.items()})


def codes_of(message: dict[str, Any]) -> list[str]:
    """The codes a client reads in an `error` message or in a `next` message's `errors`."""
    payload = message["payload"]
    errors = payload if message["type"] == "error" else payload.get("errors", [])
    return [error["extensions"]["code"] for error in errors]


async def answer(socket: Socket, query: str, variables: dict[str, Any] | None = None) -> Any:
    await socket.subscribe("1", query, variables)
    return await socket.receive()


#: (name, document, variables, the message's type, the code the client reads).
SUBSCRIBES: list[tuple[str, str, dict[str, Any] | None, str, str]] = [
    ("another user's id", SETTING_QUERY, {"ids": [USER, OTHER]}, "error", "FORBIDDEN"),
    (
        "validation",
        "subscription { viewerChanged { nope } }",
        None,
        "error",
        "GRAPHQL_VALIDATION_FAILED",
    ),
    ("parse", "subscription { viewerChanged { id ", None, "error", "GRAPHQL_PARSE_FAILED"),
    (
        "variables",
        "subscription($i: Boolean) { viewerChanged(initial: $i) { id } }",
        {"i": "yes"},
        "error",
        "BAD_USER_INPUT",
    ),
    ("no ids", SETTING_QUERY, {"ids": []}, "error", "BAD_USER_INPUT"),
    ("a long id", SETTING_QUERY, {"ids": [USER, "x" * 2100]}, "error", "BAD_USER_INPUT"),
    ("field error of a query", f'{{ user(id: "{OTHER}") {{ id }} }}', None, "next", "FORBIDDEN"),
]


@pytest.mark.parametrize(
    ("name", "query", "variables", "kind", "code"), SUBSCRIBES, ids=[s[0] for s in SUBSCRIBES]
)
async def test_each_error_sent_is_counted_under_the_code_the_client_read(
    live: LiveGateway,
    caplog: pytest.LogCaptureFixture,
    name: str,
    query: str,
    variables: dict[str, Any] | None,
    kind: str,
    code: str,
) -> None:
    before = await error_counts(live)
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        message = await answer(socket, query, variables)
        if kind == "next":  # a query's one answer, then its end
            assert await socket.receive() == {"id": "1", "type": "complete"}
        # The socket stays open for the next operation.
        await socket.subscribe("2", "{ viewer { id } }")
        assert (await socket.receive())["payload"] == {"data": {"viewer": {"id": USER}}}
    after = await error_counts(live)

    assert (message["id"], message["type"]) == ("1", kind)
    assert codes_of(message) == [code]
    assert after - before == Counter([code])
    # A client's mistake is not the server's error: nothing logged as one.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_a_budget_refusal_over_the_socket_is_counted(
    settings: Settings, clock: FixedClock
) -> None:
    async with live_gateway(settings, clock, rate_limit_user="1/minute") as live:
        before = await error_counts(live)
        async with open_socket(live.url) as socket:
            await socket.init(live.token())
            served = await answer(socket, "{ viewer { id } }")
            assert await socket.receive() == {"id": "1", "type": "complete"}
            await socket.subscribe("2", "{ viewer { id } }")
            refused = await socket.receive()
        after = await error_counts(live)

    assert codes_of(served) == []
    assert codes_of(refused) == ["RATE_LIMITED"]
    assert after - before == Counter(["RATE_LIMITED"])


async def test_http_and_the_socket_count_into_the_same_series(live: LiveGateway) -> None:
    invalid = "{ viewer { nope } }"
    http = live.url.replace("ws://", "http://")
    headers = {"Authorization": f"Bearer {live.token()}", "Accept": "application/json"}
    before = await error_counts(live)
    async with httpx.AsyncClient() as client:
        response = await client.post(http, json={"query": invalid}, headers=headers, timeout=10)
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        message = await answer(socket, invalid)
    after = await error_counts(live)

    over_http = [error["extensions"] for error in response.json()["errors"]]
    assert over_http == [{"code": "GRAPHQL_VALIDATION_FAILED"}]
    # The same error, the same code, whichever way it came.
    assert [error["extensions"] for error in message["payload"]] == over_http
    assert after - before == Counter({"GRAPHQL_VALIDATION_FAILED": 2})


async def test_the_sockets_log_lines_carry_its_request_id(
    live: LiveGateway, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.handler.addFilter(RequestIdFilter())
    caplog.set_level(logging.INFO, logger="gateway.subscriptions")
    async with open_socket(live.url, headers={"X-Request-ID": "socket-42"}) as socket:
        await socket.send({"type": "connection_init", "payload": {}})
        code, _ = await socket.closed()

    assert code == 4401
    [closing] = [r for r in caplog.records if r.getMessage().startswith("closing a WebSocket")]
    assert getattr(closing, "request_id", None) == "socket-42"


#: (name, what the client sends after opening, the close code, the error code it counts).
CLOSES: list[tuple[str, list[dict[str, Any] | str], int, str]] = [
    ("no token", [{"type": "connection_init", "payload": {}}], 4401, "UNAUTHENTICATED"),
    (
        "a bad token",
        [{"type": "connection_init", "payload": {"Authorization": "Bearer not-a-jwt"}}],
        4401,
        "UNAUTHENTICATED",
    ),
    (
        "subscribe before the acknowledgement",
        [{"id": "1", "type": "subscribe", "payload": {"query": "{ viewer { id } }"}}],
        4401,
        "UNAUTHENTICATED",
    ),
    ("not the protocol's", ["not json"], 4400, "BAD_REQUEST"),
]


@pytest.mark.parametrize(
    ("name", "messages", "close_code", "code"), CLOSES, ids=[c[0] for c in CLOSES]
)
async def test_a_refusing_close_is_counted_under_the_code_it_means(
    live: LiveGateway,
    name: str,
    messages: list[dict[str, Any] | str],
    close_code: int,
    code: str,
) -> None:
    before = await error_counts(live)
    async with open_socket(live.url) as socket:
        for message in messages:
            await socket.send(message)
        closed, _ = await socket.closed()
    after = await error_counts(live)

    assert closed == close_code
    assert after - before == Counter([code])


async def test_the_protocols_own_closes_count_as_bad_requests(live: LiveGateway) -> None:
    before = await error_counts(live)
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        await socket.send({"type": "connection_init", "payload": {}})
        second_init = await socket.closed()
    async with open_socket(live.url) as socket:
        await live.watch_setting(socket)
        await socket.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        duplicate_id = await socket.closed()
    after = await error_counts(live)

    assert [second_init[0], duplicate_id[0]] == [4429, 4409]
    assert after - before == Counter({"BAD_REQUEST": 2})


async def test_401_over_http_and_4401_on_the_socket_count_alike(live: LiveGateway) -> None:
    http = live.url.replace("ws://", "http://")
    before = await error_counts(live)
    async with httpx.AsyncClient() as client:
        response = await client.post(http, json={"query": "{ viewer { id } }"}, timeout=10)
    closes = []
    for _ in range(3):
        async with open_socket(live.url) as socket:
            await socket.send({"type": "connection_init", "payload": {}})
            closes.append((await socket.closed())[0])
    after = await error_counts(live)

    assert response.status_code == 401
    assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert closes == [4401, 4401, 4401]
    assert after - before == Counter({"UNAUTHENTICATED": 4})
