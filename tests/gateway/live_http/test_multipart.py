"""Apollo's multipart HTTP subscriptions on /graphql (`Accept: multipart/mixed;
subscriptionSpec="1.0"`): each part a `{"payload": …}` carrying its state's id in
`extensions.eventId`; a resume with `extensions.lastEventId`; only subscriptions."""

from __future__ import annotations

from typing import Any

from gateway.settings import Settings
from loaders.tables import Table
from tests.gateway.live_http.stream_client import MULTIPART_ACCEPT, open_stream
from tests.gateway.subscriptions.conftest import USER, LiveGateway, set_low_balance_alert

VIEWER = "subscription { viewerChanged(initial: true) { id lowBalanceAlert } }"
RESUMED = "subscription { viewerChanged { id lowBalanceAlert } }"


def viewer(dollars: str) -> dict[str, Any]:
    return {"viewerChanged": {"id": USER, "lowBalanceAlert": f"{dollars}.00"}}


async def test_parts_carry_the_initial_state_then_a_write_each_with_its_event_id(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with open_stream(live.url, live.token(), VIEWER, accept=MULTIPART_ACCEPT) as stream:
        content_type = stream.response.headers["content-type"]
        initial = await stream.part()
        await live.subscribed()
        await set_low_balance_alert(dynamodb, settings, USER, "65")
        await live.publish(Table.BALANCE_SETTINGS, USER)
        changed = await stream.part()

    assert content_type == 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0"'
    assert initial["payload"]["data"] == viewer("40")
    assert changed["payload"]["data"] == viewer("65")
    first, second = (part["payload"]["extensions"]["eventId"] for part in (initial, changed))
    assert len(first) == 12
    assert first != second


async def test_a_resume_with_last_event_id_skips_the_unchanged_state(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with open_stream(live.url, live.token(), VIEWER, accept=MULTIPART_ACCEPT) as stream:
        seen = (await stream.part())["payload"]["extensions"]["eventId"]
    resumed = {"lastEventId": seen}
    async with open_stream(
        live.url, live.token(), RESUMED, accept=MULTIPART_ACCEPT, extensions=resumed
    ) as stream:
        await live.subscribed()
        await set_low_balance_alert(dynamodb, settings, USER, "70")
        await live.publish(Table.BALANCE_SETTINGS, USER)
        first = await stream.part()
    assert first["payload"]["data"] == viewer("70")


async def test_a_query_is_refused_as_the_streams_one_part(live: LiveGateway) -> None:
    async with open_stream(
        live.url, live.token(), "{ viewer { id } }", accept=MULTIPART_ACCEPT
    ) as stream:
        refused = await stream.part()
        end = await stream.part()
    [error] = refused["payload"]["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert error["message"].startswith("A query is not sent as a stream")
    assert end is None
