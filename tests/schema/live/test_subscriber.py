"""A subscriber's queue is bounded and keeps the latest; its budget delays, never drops; an
idle subscriber holds no task."""

from __future__ import annotations

import asyncio

from schema.live import Mailbox, Payload, Subscriber
from schema.live.ports import NoObserver
from schema.principal import Principal


def answer(value: int) -> Payload:
    return {"data": {"userChanged": {"value": value}}}


async def test_the_mailbox_keeps_one_answer_per_user_the_latest() -> None:
    mailbox = Mailbox()
    for value in range(10):
        mailbox.put("u-1", answer(value))
        mailbox.put("u-2", answer(100 + value))
    assert len(mailbox) == 2
    assert mailbox.dropped == 18
    assert mailbox.first() == ("u-1", answer(9))
    assert mailbox.first() == ("u-2", answer(109))
    assert mailbox.first() is None
    assert len(mailbox) == 0


async def test_a_slow_client_gets_the_latest_state_after_the_one_it_was_sent() -> None:
    sent: list[Payload] = []
    release = asyncio.Event()

    async def slow_send(payload: Payload) -> None:
        sent.append(payload)
        await release.wait()

    async def charged(principal: Principal, cost: int) -> float:
        return 0.0

    subscriber = Subscriber(
        principal=Principal("u-1"),
        user_ids=("u-1",),
        cost=1,
        send=slow_send,
        charge=charged,
        observer=NoObserver(),
    )
    subscriber.offer("u-1", answer(0))
    for _ in range(20):
        if sent:
            break
        await asyncio.sleep(0.01)
    for value in range(1, 10):
        subscriber.offer("u-1", answer(value))
    assert len(subscriber.mailbox) == 1
    release.set()
    for _ in range(100):
        if len(sent) == 2:
            break
        await asyncio.sleep(0.01)
    # Equal to the last one sent: not sent again.
    subscriber.offer("u-1", answer(9))
    await subscriber.sent()
    assert sent == [answer(0), answer(9)]
    assert subscriber.mailbox.dropped == 8


async def test_over_budget_the_answer_waits_and_a_newer_one_replaces_it() -> None:
    sent: list[Payload] = []
    refusals = [0.05, 0.05]

    async def send(payload: Payload) -> None:
        sent.append(payload)

    async def charge(principal: Principal, cost: int) -> float:
        return refusals.pop() if refusals else 0.0

    subscriber = Subscriber(
        principal=Principal("u-1"),
        user_ids=("u-1",),
        cost=3,
        send=send,
        charge=charge,
        observer=NoObserver(),
    )
    subscriber.offer("u-1", answer(1))
    await asyncio.sleep(0.02)
    subscriber.offer("u-1", answer(2))
    for _ in range(100):
        if sent:
            break
        await asyncio.sleep(0.01)
    subscriber.close()
    assert sent == [answer(2)]
    assert subscriber.budget_waits == 2


async def test_an_idle_subscriber_holds_no_task_and_a_closed_one_sends_nothing() -> None:
    sent: list[Payload] = []

    async def send(payload: Payload) -> None:
        sent.append(payload)

    async def charge(principal: Principal, cost: int) -> float:
        return 0.0

    subscriber = Subscriber(
        principal=Principal("u-1"),
        user_ids=("u-1", "u-2"),
        cost=1,
        send=send,
        charge=charge,
        observer=NoObserver(),
    )
    tasks = len(asyncio.all_tasks())
    subscriber.offer("u-1", answer(1))
    subscriber.offer("u-2", answer(2))
    assert len(asyncio.all_tasks()) == tasks + 1  # one sender for both
    await subscriber.sent()
    assert sent == [answer(1), answer(2)]
    assert len(asyncio.all_tasks()) == tasks
    subscriber.offer("u-1", answer(3))
    subscriber.close()
    await subscriber.sent()
    subscriber.offer("u-2", answer(4))
    await asyncio.sleep(0.01)
    assert sent == [answer(1), answer(2)]
    assert len(asyncio.all_tasks()) == tasks
