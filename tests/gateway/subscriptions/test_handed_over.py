"""A subscription, once subscribed, is the hub's: no task and no executing stream of its
own. A change still reaches it; `complete`, or the socket's close, unsubscribes it."""

from __future__ import annotations

import asyncio

from loaders.tables import Table
from tests.gateway.subscriptions.conftest import SETTING_QUERY, USER, LiveGateway
from tests.gateway.subscriptions.socket_client import open_socket


async def settled_tasks() -> int:
    """The loop's tasks, once those a subscribe started have ended."""
    counts: list[int] = []
    for _ in range(100):
        counts.append(len(asyncio.all_tasks()))
        if counts[-3:] == [counts[-1]] * 3 and len(counts) >= 3:
            return counts[-1]
        await asyncio.sleep(0.02)
    raise AssertionError(f"the tasks never settled: {counts[-5:]}")


async def test_subscriptions_hold_no_task_and_complete_unsubscribes(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        await live.watch_setting(socket, "1")
        before = await settled_tasks()
        for operation_id in ("2", "3", "4"):
            await socket.subscribe(operation_id, SETTING_QUERY, {"ids": [USER]})
        await live.subscribed(4)
        assert await settled_tasks() == before
        await live.publish(Table.BALANCE_SETTINGS, USER)
        events = {(await socket.receive())["id"] for _ in range(4)}
        assert events == {"1", "2", "3", "4"}
        assert await settled_tasks() == before

        await socket.send({"id": "2", "type": "complete"})
        for _ in range(100):
            if live.hub.subscriptions == 3:
                break
            await asyncio.sleep(0.01)
        assert live.hub.subscriptions == 3
        # Its id is free again (no 4409), and a change reaches the three left and it.
        await socket.subscribe("2", SETTING_QUERY, {"ids": [USER]})
        await live.subscribed(4)
        await live.publish(Table.BALANCE_SETTINGS, USER)
        # The re-subscribed "2" gets its first answer; the others saw this one already.
        assert await socket.receive() == {
            "id": "2",
            "type": "next",
            "payload": {"data": {"userChanged": {"id": USER, "lowBalanceAlert": None}}},
        }
    for _ in range(100):
        if live.hub.subscriptions == 0:
            break
        await asyncio.sleep(0.01)
    assert live.hub.subscriptions == 0
