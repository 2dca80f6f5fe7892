"""A browser's EventSource credential: `POST /graphql/stream-cookie` with the bearer token
sets it as an HttpOnly, Secure, SameSite=Strict cookie on /graphql, which a GraphQL over SSE
request (and no other) may carry in place of the header, for a subscription, from the
gateway's own origin; anything else is no token (401 UNAUTHENTICATED)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http.cookies import SimpleCookie
from typing import Any

import httpx
import pytest

from gateway.live_http.stream_cookie import COOKIE, PATH
from gateway.settings import Settings
from tests.gateway.live_http.stream_client import MULTIPART_ACCEPT, Stream
from tests.gateway.subscriptions.conftest import USER, LiveGateway, set_low_balance_alert

VIEWER = "subscription { viewerChanged(initial: true) { id lowBalanceAlert } }"


def base(live: LiveGateway) -> str:
    return live.url.replace("ws://", "http://").removesuffix("/graphql")


def cookie_of(response: httpx.Response) -> SimpleCookie:
    [header] = response.headers.get_list("set-cookie")
    parsed = SimpleCookie()
    parsed.load(header)
    return parsed


@asynccontextmanager
async def event_stream(
    live: LiveGateway, token: str, query: str = VIEWER, **headers: str
) -> AsyncIterator[Stream]:
    """A GET as an EventSource sends it: the query in the URL, the token in the cookie."""
    async with (
        httpx.AsyncClient(timeout=30) as client,
        client.stream(
            "GET",
            base(live) + "/graphql",
            params={"query": query},
            headers={"Accept": "text/event-stream", "Cookie": f"{COOKIE}={token}", **headers},
        ) as response,
    ):
        yield Stream(response)


async def test_a_page_posts_its_token_and_gets_it_back_as_an_httponly_cookie(
    live: LiveGateway,
) -> None:
    token = live.token(lifetime=3600)
    async with httpx.AsyncClient() as client:
        answer = await client.post(base(live) + PATH, headers={"Authorization": f"Bearer {token}"})
    morsel = cookie_of(answer)[COOKIE]
    assert answer.status_code == 204
    assert answer.headers["cache-control"] == "no-store"
    assert morsel.value == token
    assert (morsel["httponly"], morsel["secure"], morsel["samesite"]) == (True, True, "strict")
    assert morsel["path"] == "/graphql"
    assert morsel["max-age"] == "3600"


@pytest.mark.parametrize("authorization", [None, "Bearer not-a-token", "Basic dTpw"])
async def test_the_cookie_is_refused_401_for_a_missing_or_invalid_token(
    live: LiveGateway, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    async with httpx.AsyncClient() as client:
        answer = await client.post(base(live) + PATH, headers=headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == 'Bearer realm="insight"'
    assert [e["extensions"]["code"] for e in answer.json()["errors"]] == ["UNAUTHENTICATED"]
    assert "set-cookie" not in answer.headers


async def test_delete_removes_the_cookie(live: LiveGateway) -> None:
    async with httpx.AsyncClient() as client:
        answer = await client.delete(base(live) + PATH)
    morsel = cookie_of(answer)[COOKIE]
    assert answer.status_code == 204
    assert (morsel.value, morsel["max-age"], morsel["path"]) == ("", "0", "/graphql")


async def test_an_event_stream_with_the_cookie_alone_streams_the_subscription(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with event_stream(live, live.token(), Sec_Fetch_Site="same-origin") as stream:
        initial = await stream.event()
    assert stream.response.status_code == 200
    assert initial.data == {"data": {"viewerChanged": {"id": USER, "lowBalanceAlert": "40.00"}}}


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "https://elsewhere.example"}, {"Sec-Fetch-Site": "cross-site"}],
    ids=["another-origin", "cross-site-without-origin"],
)
async def test_a_cookie_sent_from_another_sites_page_is_no_token(
    live: LiveGateway, headers: dict[str, str]
) -> None:
    async with event_stream(live, live.token(), **headers) as stream:
        body = await stream.ended()
    assert stream.response.status_code == 401
    assert '"UNAUTHENTICATED"' in body
    assert live.hub.subscriptions == 0


async def test_a_cookie_holding_an_expired_token_is_refused_401(live: LiveGateway) -> None:
    async with event_stream(live, live.token(lifetime=-3600)) as stream:
        await stream.ended()
    assert stream.response.status_code == 401


async def test_the_cookie_authorizes_a_subscription_and_nothing_else(live: LiveGateway) -> None:
    cookie = {"Cookie": f"{COOKIE}={live.token()}"}
    async with event_stream(live, live.token(), "{ viewer { id } }") as stream:
        refused = await stream.event()
        done = await stream.event()
    async with httpx.AsyncClient() as client:
        query = await client.post(
            base(live) + "/graphql", json={"query": "{ viewer { id } }"}, headers=cookie
        )
        multipart = await client.post(
            base(live) + "/graphql",
            json={"query": VIEWER},
            headers={**cookie, "Accept": MULTIPART_ACCEPT},
        )
    assert [e["extensions"]["code"] for e in refused.data["errors"]] == ["BAD_REQUEST"]
    assert done.event == "complete"
    assert (query.status_code, multipart.status_code) == (401, 401)


async def test_a_cookie_stream_ends_with_retry_when_its_token_expires(live: LiveGateway) -> None:
    """Its EventSource comes back by itself with the cookie its page renewed."""
    resumed = "subscription { viewerChanged { id lowBalanceAlert } }"
    async with event_stream(live, live.token(lifetime=1), resumed) as stream:
        end = await stream.event()
        rest = await stream.ended()
    assert (end.event, end.retry, rest) == (None, 100, "")
    assert live.hub.subscriptions == 0
