"""A socket's subscription resumed with `extensions.lastEventId`, as a live HTTP stream's
is (gateway/operations/resume.py): its events are named (`extensions.eventId`, the same id
SSE and multipart give the same state), an unchanged state is not sent again, and one that
changed while the client was away arrives first."""

from __future__ import annotations

from typing import Any

from gateway.operations.resume import encode, event_id
from gateway.settings import Settings
from tests.gateway.subscriptions.conftest import USER, LiveGateway, set_low_balance_alert
from tests.gateway.subscriptions.socket_client import Socket, open_socket
from tests.gateway.subscriptions.test_live_events import change_setting

VIEWER = "subscription { viewerChanged(initial: true) { id lowBalanceAlert } }"
RESUMED = "subscription { viewerChanged { id lowBalanceAlert } }"


def shown(dollars: str) -> dict[str, Any]:
    return {"data": {"viewerChanged": {"id": USER, "lowBalanceAlert": f"{dollars}.00"}}}


async def subscribe(socket: Socket, query: str, last_event_id: str | None) -> None:
    payload = {"query": query, "extensions": {"lastEventId": last_event_id}}
    await socket.send({"id": "1", "type": "subscribe", "payload": payload})


async def first_event(live: LiveGateway) -> dict[str, Any]:
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        await subscribe(socket, VIEWER, None)
        message = await socket.receive()
    assert message["type"] == "next"
    payload: dict[str, Any] = message["payload"]
    return payload


async def test_a_named_event_carries_the_id_of_its_state(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    payload = await first_event(live)
    assert payload == {**shown("40"), "extensions": {"eventId": event_id(encode(shown("40")))}}


async def test_a_resume_with_an_unchanged_state_sends_nothing_before_the_next_change(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    seen = (await first_event(live))["extensions"]["eventId"]
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        await subscribe(socket, RESUMED, seen)
        await live.subscribed()
        reads = len(live.reads())
        await change_setting(live, dynamodb, settings, "70")
        first = await socket.receive()
    # The resumed subscription read the current state, found it the client's and sent
    # nothing: the first event is the change made after.
    assert first["payload"]["data"] == shown("70")["data"]
    assert len(live.reads()) > reads


async def test_a_resume_after_a_change_while_away_sends_exactly_that_state_first(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    seen = (await first_event(live))["extensions"]["eventId"]
    await set_low_balance_alert(dynamodb, settings, USER, "55")  # while away: no subscriber
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        await subscribe(socket, RESUMED, seen)
        missed = await socket.receive()
        await live.subscribed()
        await change_setting(live, dynamodb, settings, "80")
        after = await socket.receive()
    assert missed["payload"] == {
        **shown("55"),
        "extensions": {"eventId": event_id(encode(shown("55")))},
    }
    assert after["payload"]["data"] == shown("80")["data"]


async def test_an_id_that_is_no_event_id_is_the_operations_bad_request(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        await subscribe(socket, RESUMED, "x" * 200)
        answer = await socket.receive()
    assert answer["type"] == "error"
    assert answer["payload"][0]["extensions"]["code"] == "BAD_REQUEST"
