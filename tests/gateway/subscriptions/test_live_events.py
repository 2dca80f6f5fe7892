"""What subscribers receive: the new state after a change, whoever wrote it; one re-read
for many identical subscriptions; bursts coalesced; unchanged answers not sent; budgets."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from gateway.settings import Settings
from loaders.tables import Table
from support.fixed_clock import FixedClock
from support.metrics_text import value
from tests.conftest import put_wire_items
from tests.gateway.subscriptions.conftest import (
    SETTING_QUERY,
    USER,
    LiveGateway,
    live_gateway,
    set_low_balance_alert,
)
from tests.gateway.subscriptions.socket_client import Socket, open_socket
from tests.schema.test_mutations import last_page_item
from tests.schema.test_user_fields import payday_item


def setting_event(operation_id: str, dollars: str | None, user: str = USER) -> dict[str, Any]:
    """The event of a setting written as `dollars` (a Decimal is sent with two decimals)."""
    shown = None if dollars is None else f"{dollars}.00"
    return {
        "id": operation_id,
        "type": "next",
        "payload": {"data": {"userChanged": {"id": user, "lowBalanceAlert": shown}}},
    }


async def change_setting(
    live: LiveGateway, dynamodb: Any, settings: Settings, dollars: str
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, dollars)
    await live.publish(Table.BALANCE_SETTINGS, USER)


async def test_a_mutation_over_http_reaches_the_subscriber_with_no_stream_read(
    live: LiveGateway,
) -> None:
    """The gateway publishes its own writes on the feed as it answers, cache or not: the
    `live` gateway's stream readers are stopped, so nothing else could carry the change."""
    query = "subscription { viewerChanged { id paveLabel { label } } }"
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        await socket.subscribe("1", query)
        await live.subscribed()
        async with httpx.AsyncClient() as client:
            response = await client.post(
                live.url.replace("ws://", "http://"),
                json={
                    "query": 'mutation { markInsightsRefresh(input: {userId: "u-1"}) { label } }'
                },
                headers={"Authorization": f"Bearer {live.writer()}"},
            )
        assert response.json() == {"data": {"markInsightsRefresh": {"label": "REFRESH_INSIGHTS"}}}
        assert await socket.receive() == {
            "id": "1",
            "type": "next",
            "payload": {
                "data": {"viewerChanged": {"id": USER, "paveLabel": {"label": "REFRESH_INSIGHTS"}}}
            },
        }


async def test_re_reads_are_strongly_consistent(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    async with open_socket(live.url) as socket:
        await live.watch_setting(socket)
        await change_setting(live, dynamodb, settings, "30")
        assert await socket.receive() == setting_event("1", "30")
    [read] = live.reads()
    assert all(table["ConsistentRead"] is True for table in read.params["RequestItems"].values())


async def test_an_unchanged_answer_is_not_sent(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    async with open_socket(live.url) as socket:
        await live.watch_setting(socket)
        await change_setting(live, dynamodb, settings, "30")
        assert await socket.receive() == setting_event("1", "30")
        # Another change of the partition that leaves this selection as it was: re-read,
        # and not sent.
        await live.publish(Table.BALANCE_SETTINGS, USER)
        for _ in range(500):
            if len(live.reads()) == 2:
                break
            await asyncio.sleep(0.02)
        assert len(live.reads()) == 2
        assert await socket.silent(0.5)
        # Changes to tables that make no event, and to other users, read nothing.
        await live.publish(Table.DATACAPTURE, f"USER#{USER}")
        await live.publish(Table.BALANCE_SETTINGS, "u-9")
        assert await socket.silent(0.5)
        assert len(live.reads()) == 2


async def test_a_burst_coalesces_and_the_last_event_shows_the_final_state(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    async with open_socket(live.url) as socket:
        await live.watch_setting(socket)
        # Ten writes, their ten changes arriving together (as a stream batch brings them).
        for dollars in range(1, 11):
            await set_low_balance_alert(dynamodb, settings, USER, str(dollars))
        for _ in range(10):
            await live.publish(Table.BALANCE_SETTINGS, USER)
        assert await socket.receive() == setting_event("1", "10")
        assert await socket.silent(0.5)
        assert len(live.reads()) == 1
        # Changes spread over time, each after its write: never more events than changes,
        # and the last one shows the final state.
        for dollars in range(11, 21):
            await change_setting(live, dynamodb, settings, str(dollars))
        events = [await socket.receive()]
        while events[-1] != setting_event("1", "20"):
            events.append(await socket.receive())
        assert await socket.silent(0.5)
    assert len(events) <= 10


async def test_one_re_read_answers_a_hundred_identical_subscriptions(
    settings: Settings, clock: FixedClock, dynamodb: Any
) -> None:
    async with live_gateway(settings, clock) as live, AsyncExitStack() as stack:
        sockets: list[Socket] = []
        for board in range(5):
            socket = await stack.enter_async_context(open_socket(live.url))
            # Five dashboards (five principals), one read scope.
            await socket.init(live.token(f"dash-{board}", "dashboard"))
            for operation in range(20):
                await socket.subscribe(str(operation), SETTING_QUERY, {"ids": [USER]})
            sockets.append(socket)
        await live.subscribed(100)
        assert live.hub.subscriptions == 100
        await change_setting(live, dynamodb, settings, "75")
        for socket in sockets:
            received = sorted(
                [await socket.receive() for _ in range(20)], key=lambda m: int(m["id"])
            )
            assert received == [setting_event(str(operation), "75") for operation in range(20)]
        assert len(live.reads()) == 1
        metrics = await live.metrics()
        assert value(metrics, "gateway_subscription_connections") == 5
        assert value(metrics, "gateway_subscriptions") == 100
        assert value(metrics, "gateway_subscription_events_total") == 100
        assert value(metrics, "gateway_subscription_rereads_total", reason="change") == 1
        for reason in ("initial", "resync", "clock"):
            assert value(metrics, "gateway_subscription_rereads_total", reason=reason) == 0


async def test_initial_sends_each_ids_current_state_first(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    query = (
        "subscription($ids: [ID!]!) { userChanged(ids: $ids, initial: true) "
        "{ id lowBalanceAlert } }"
    )
    async with open_socket(live.url) as socket:
        await socket.init(live.dashboard())
        await socket.subscribe("1", query, {"ids": [USER, "u-3", USER]})
        first = [await socket.receive(), await socket.receive()]
        assert sorted(first, key=lambda m: m["payload"]["data"]["userChanged"]["id"]) == [
            {
                "id": "1",
                "type": "next",
                "payload": {"data": {"userChanged": {"id": USER, "lowBalanceAlert": "40.00"}}},
            },
            {
                "id": "1",
                "type": "next",
                "payload": {"data": {"userChanged": {"id": "u-3", "lowBalanceAlert": None}}},
            },
        ]
        # Without `initial`, a second subscription of the same group gets nothing yet.
        await socket.subscribe("2", SETTING_QUERY, {"ids": [USER]})
        assert await socket.silent(0.5)


async def test_a_resync_sends_what_changed_while_changes_were_missed(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    async with open_socket(live.url) as socket:
        await live.watch_setting(socket)
        await set_low_balance_alert(dynamodb, settings, USER, "55")
        live.hub.resync("the feed reconnected")
        assert await socket.receive() == setting_event("1", "55")


async def test_over_budget_an_event_waits_and_is_not_lost(
    settings: Settings, clock: FixedClock, dynamodb: Any
) -> None:
    async with live_gateway(settings, clock, rate_limit_user="2/second") as live:
        async with open_socket(live.url) as socket:
            await live.watch_setting(socket)
            [subscriber] = live.hub._subscribers
            for dollars in ("1", "2", "3"):
                await change_setting(live, dynamodb, settings, dollars)
                await asyncio.sleep(0.2)
            events = [await socket.receive()]
            while events[-1] != setting_event("1", "3"):
                events.append(await socket.receive())
        # The subscribe and the first event spent the budget: a later event waited.
        assert subscriber.cost == 1
        assert subscriber.budget_waits >= 1


async def test_at_utc_midnight_a_subscription_is_re_read(settings: Settings, dynamodb: Any) -> None:
    # The hub schedules the next UTC midnight when it starts; the clock then moves past it.
    clock = FixedClock(datetime(2026, 12, 2, 23, 59, 59, 500_000, tzinfo=UTC))
    await put_wire_items(dynamodb, settings.tables.pave, [payday_item(USER, "2026-12-02")])
    query = "subscription { viewerChanged(initial: true) { payday { predictionDate } } }"
    async with live_gateway(settings, clock) as live, open_socket(live.url) as socket:
        await socket.init(live.token())
        await socket.subscribe("1", query)
        await live.subscribed()
        before = await socket.receive()
        assert before["payload"]["data"] == {
            "viewerChanged": {"payday": {"predictionDate": "2026-12-02"}}
        }
        clock.set(datetime(2026, 12, 3, 0, 0, 1, tzinfo=UTC))
        after = await socket.receive()
    # Served only on its UTC day: gone at midnight, with no write and no change.
    assert after["payload"]["data"] == {"viewerChanged": {"payday": None}}


async def test_a_subscribe_over_budget_is_refused_with_rate_limited(
    settings: Settings, clock: FixedClock
) -> None:
    async with (
        live_gateway(settings, clock, rate_limit_user="1/minute") as live,
        open_socket(live.url) as socket,
    ):
        await live.watch_setting(socket)
        await socket.subscribe("2", SETTING_QUERY, {"ids": [USER]})
        refused = await socket.receive()
        assert refused["id"] == "2"
        assert refused["payload"]["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        assert await socket.receive() == {"id": "2", "type": "complete"}
        assert live.hub.subscriptions == 1


async def test_an_item_reaching_its_ttl_is_re_read_without_a_change(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    expires = int(live.clock.now().timestamp()) + 2
    await put_wire_items(dynamodb, settings.tables.pave, [last_page_item(4, ttl=expires)])
    query = "subscription { viewerChanged(initial: true) { lastPages { page } } }"
    async with open_socket(live.url) as socket:
        await socket.init(live.token())
        await socket.subscribe("1", query)
        before = await socket.receive()
        assert before["payload"]["data"] == {"viewerChanged": {"lastPages": [{"page": 4}]}}
        # The hub asked to be woken one second past the TTL; the clock gets there first.
        live.clock.advance(timedelta(seconds=5))
        after = await socket.receive()
    assert after["payload"]["data"] == {"viewerChanged": {"lastPages": []}}
    assert len(live.reads()) == 2
