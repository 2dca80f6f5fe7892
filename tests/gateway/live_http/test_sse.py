"""GraphQL over SSE on /graphql (`Accept: text/event-stream`, graphql-sse's distinct
connections): the subscriber's events, each named by its state; a resume with
`Last-Event-ID`; the socket's refusals and bounds; the token's expiry."""

from __future__ import annotations

from typing import Any

import httpx

from gateway.live_http import event_id
from gateway.settings import Settings
from loaders.tables import Table
from support.fixed_clock import FixedClock
from tests.gateway.live_http.stream_client import Stream, open_stream
from tests.gateway.subscriptions.conftest import (
    OTHER,
    SETTING_QUERY,
    USER,
    LiveGateway,
    live_gateway,
    set_low_balance_alert,
)
from tests.gateway.subscriptions.socket_client import open_socket

VIEWER = "subscription { viewerChanged(initial: true) { id lowBalanceAlert } }"
RESUMED = "subscription { viewerChanged { id lowBalanceAlert } }"


def shown(dollars: str) -> dict[str, Any]:
    return {"data": {"viewerChanged": {"id": USER, "lowBalanceAlert": f"{dollars}.00"}}}


async def change(live: LiveGateway, dynamodb: Any, settings: Settings, dollars: str) -> None:
    """A write straight to DynamoDB, as another service makes it, and its change."""
    await set_low_balance_alert(dynamodb, settings, USER, dollars)
    await live.publish(Table.BALANCE_SETTINGS, USER)


async def test_the_initial_state_then_a_write_each_an_event_named_by_its_state(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with open_stream(live.url, live.token(), VIEWER) as stream:
        assert stream.response.status_code == 200
        assert stream.response.headers["content-type"].startswith("text/event-stream")
        assert stream.response.headers["cache-control"] == "no-store"
        initial = await stream.event()
        await live.subscribed()
        await change(live, dynamodb, settings, "65")
        changed = await stream.event()

    assert (initial.event, initial.data) == ("next", shown("40"))
    assert (changed.event, changed.data) == ("next", shown("65"))
    # The id is the answer's bytes' hash: the same state, the same id, on any replica.
    assert initial.id == event_id(initial.raw_data.encode())
    assert changed.id == event_id(changed.raw_data.encode())
    assert initial.id != changed.id


async def test_a_resume_with_an_unchanged_state_sends_nothing_before_the_next_change(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with open_stream(live.url, live.token(), VIEWER) as stream:
        seen = await stream.event()
    async with open_stream(
        live.url, live.token(), RESUMED, headers={"Last-Event-ID": str(seen.id)}
    ) as stream:
        await live.subscribed()
        reads = len(live.reads())
        await change(live, dynamodb, settings, "70")
        first = await stream.event()

    # The resumed subscription read the current state (the initial read), found it the
    # client's, and sent nothing: the first event is the change made after.
    assert first.data == shown("70")
    assert len(live.reads()) > reads


async def test_a_resume_after_a_change_while_away_sends_exactly_that_state_first(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with open_stream(live.url, live.token(), VIEWER) as stream:
        seen = await stream.event()
    await set_low_balance_alert(dynamodb, settings, USER, "55")  # while away: no subscriber
    async with open_stream(
        live.url, live.token(), RESUMED, headers={"Last-Event-ID": str(seen.id)}
    ) as stream:
        missed = await stream.event()
        await live.subscribed()
        await change(live, dynamodb, settings, "80")
        after = await stream.event()

    assert missed.data == shown("55")
    assert missed.id == event_id(missed.raw_data.encode())
    assert after.data == shown("80")


async def test_no_token_is_refused_401_before_any_stream(live: LiveGateway) -> None:
    async with open_stream(live.url, None, VIEWER) as stream:
        await stream.ended()
    assert stream.response.status_code == 401
    [error] = stream.response.json()["errors"]
    assert error["extensions"]["code"] == "UNAUTHENTICATED"
    assert live.hub.subscriptions == 0


async def test_another_users_data_is_refused_forbidden_as_the_streams_one_event(
    live: LiveGateway,
) -> None:
    async with open_stream(live.url, live.token(), SETTING_QUERY, {"ids": [OTHER]}) as stream:
        refused = await stream.event()
        done = await stream.event()
    assert stream.response.status_code == 200
    assert refused.event == "next"
    assert refused.id is None
    assert [e["extensions"]["code"] for e in refused.data["errors"]] == ["FORBIDDEN"]
    assert (done.event, done.data) == ("complete", None)
    assert live.reads() == []
    assert live.hub.subscriptions == 0


async def test_a_query_over_sse_is_one_event_then_complete(live: LiveGateway) -> None:
    async with open_stream(live.url, live.token(), "{ viewer { id } }") as stream:
        answer = await stream.event()
        done = await stream.event()
    assert answer.data == {"data": {"viewer": {"id": USER}}}
    assert done.event == "complete"


async def test_a_stream_and_a_socket_share_the_principals_bound(
    settings: Settings, clock: FixedClock
) -> None:
    async with live_gateway(settings, clock, subscriptions_max_sockets_per_principal=1) as live:
        async with open_stream(live.url, live.token(), VIEWER) as stream:
            await live.subscribed()
            async with httpx.AsyncClient() as client:
                second = await client.post(
                    live.url.replace("ws://", "http://"),
                    json={"query": VIEWER},
                    headers={
                        "Accept": "text/event-stream",
                        "Authorization": f"Bearer {live.token()}",
                    },
                )
            async with open_socket(live.url) as socket:
                await socket.send(
                    {
                        "type": "connection_init",
                        "payload": {"Authorization": f"Bearer {live.token()}"},
                    }
                )
                code, _ = await socket.closed()
            assert stream.response.status_code == 200
        assert second.status_code == 429
        assert second.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        assert code == 4429


async def test_the_stream_ends_when_its_token_expires(live: LiveGateway) -> None:
    async with open_stream(live.url, live.token(lifetime=1), RESUMED) as stream:
        expired = await stream.event()
        done = await stream.event()
    assert expired.data["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert done.event == "complete"
    assert live.hub.subscriptions == 0


async def test_subscriptions_off_refuse_a_stream_with_400(
    settings: Settings, clock: FixedClock
) -> None:
    async with (
        live_gateway(settings, clock, subscriptions=False) as live,
        open_stream(live.url, live.token(), VIEWER) as stream,
    ):
        await stream.ended()
    assert stream.response.status_code == 400
    [error] = stream.response.json()["errors"]
    assert error["message"] == "Subscriptions are turned off on this gateway"


async def test_a_get_with_the_query_in_its_parameters_streams_as_a_post_does(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    """As an EventSource sends it (a GET), with the token in its header."""
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with (
        httpx.AsyncClient(timeout=30) as client,
        client.stream(
            "GET",
            live.url.replace("ws://", "http://"),
            params={"query": VIEWER},
            headers={"Accept": "text/event-stream", "Authorization": f"Bearer {live.token()}"},
        ) as response,
    ):
        initial = await Stream(response).event()
    assert initial.data == shown("40")


async def test_a_stream_from_an_allowed_origin_carries_cors_headers(
    settings: Settings, clock: FixedClock
) -> None:
    """A stream takes the sockets' lane past the middleware, CORS kept."""
    origin = "https://app.example"
    async with (
        live_gateway(settings, clock, cors_origins=(origin,)) as live,
        open_stream(live.url, live.token(), VIEWER, headers={"Origin": origin}) as stream,
    ):
        await stream.event()
    assert stream.response.headers["access-control-allow-origin"] == origin
    assert stream.response.headers["access-control-expose-headers"].startswith("X-Request-ID")
    assert len(stream.response.headers["x-request-id"]) == 32
