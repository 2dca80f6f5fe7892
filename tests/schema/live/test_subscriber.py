"""A subscriber's queue is bounded and keeps the latest; its budget delays, never drops."""

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
    assert await mailbox.get() == ("u-1", answer(9))
    assert await mailbox.get() == ("u-2", answer(109))


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
    runner = asyncio.create_task(subscriber.run())
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
    await asyncio.sleep(0.05)
    runner.cancel()
    await asyncio.gather(runner, return_exceptions=True)
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
    runner = asyncio.create_task(subscriber.run())
    subscriber.offer("u-1", answer(1))
    await asyncio.sleep(0.02)
    subscriber.offer("u-1", answer(2))
    for _ in range(100):
        if sent:
            break
        await asyncio.sleep(0.01)
    runner.cancel()
    await asyncio.gather(runner, return_exceptions=True)
    assert sent == [answer(2)]
    assert subscriber.budget_waits == 2
