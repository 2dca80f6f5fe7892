"""The in-memory budget windows (gateway/protection/memory_windows.py): limits' moving
window, counted as limits counts it, swept on the loop with no thread, once a second."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import limits
import pytest
from limits.aio.storage import MovingWindowSupport
from limits.aio.strategies import MovingWindowRateLimiter

from gateway.protection.memory_windows import LoopMemoryStorage


@pytest.fixture
def threads(monkeypatch: pytest.MonkeyPatch) -> list[Callable[..., Any]]:
    """Whatever is sent to a thread with asyncio.to_thread (limits' own sweep does)."""
    sent: list[Callable[..., Any]] = []
    hop = asyncio.to_thread

    async def counted(function: Callable[..., Any], *args: Any) -> Any:
        sent.append(function)
        return await hop(function, *args)

    monkeypatch.setattr(asyncio, "to_thread", counted)
    return sent


async def test_the_window_counts_as_limits_counts(threads: list[Callable[..., Any]]) -> None:
    budget = limits.parse("3/second")
    ours = MovingWindowRateLimiter(LoopMemoryStorage())
    theirs = MovingWindowRateLimiter(limits.aio.storage.MemoryStorage())
    for limiter in (ours, theirs):
        answers = [await limiter.hit(budget, "p", cost=1) for _ in range(4)]
        assert answers == [True, True, True, False]
        assert not await limiter.hit(budget, "p", cost=2)
        assert await limiter.hit(budget, "q", cost=3)
        stats = await limiter.get_window_stats(budget, "p")
        assert stats.remaining == 0
    await asyncio.sleep(1.05)
    assert await ours.hit(budget, "p", cost=3)


async def test_many_principals_send_nothing_to_a_thread(
    threads: list[Callable[..., Any]],
) -> None:
    budget = limits.parse("100/second")
    ours = MovingWindowRateLimiter(LoopMemoryStorage())
    for n in range(200):
        assert await ours.hit(budget, f"principal-{n}")
    await asyncio.sleep(0)
    assert threads == []
    # limits' own storage hops to a thread a key (what this module is for).
    theirs = MovingWindowRateLimiter(limits.aio.storage.MemoryStorage())
    for n in range(20):
        await theirs.hit(budget, f"principal-{n}")
    for _ in range(50):
        if threads:
            break
        await asyncio.sleep(0.01)
    assert threads


async def test_expired_windows_are_swept_at_most_once_a_second() -> None:
    storage = LoopMemoryStorage()
    limiter = MovingWindowRateLimiter(storage)
    budget = limits.parse("5/second")
    for n in range(10):
        await limiter.hit(budget, f"gone-{n}", cost=2)
    assert len(storage.events) == 10
    await asyncio.sleep(1.05)
    # The first hit swept when the storage was new; a second later the next one sweeps.
    await limiter.hit(budget, "fresh")
    assert list(storage.events) == [key for key in storage.events if "fresh" in key]
    assert len(storage.events) == 1
    for n in range(3):
        await limiter.hit(budget, f"late-{n}")
    # Within the second, no sweep: every key is kept.
    assert len(storage.events) == 4


async def test_a_mixed_sequence_counts_as_limits_own_storage() -> None:
    """The storage is the gateway's own, on limits' documented custom-storage interface
    (no private member of limits' MemoryStorage): the same answers and stats as limits'."""
    assert isinstance(LoopMemoryStorage(), MovingWindowSupport)
    budget = limits.parse("7/minute")
    ours = MovingWindowRateLimiter(LoopMemoryStorage())
    theirs = MovingWindowRateLimiter(limits.aio.storage.MemoryStorage())
    sequence = [("a", 3), ("b", 8), ("a", 4), ("a", 1), ("b", 7), ("c", 2), ("a", 2), ("c", 5)]
    answers: dict[str, list[object]] = {"ours": [], "theirs": []}
    for name, limiter in (("ours", ours), ("theirs", theirs)):
        for key, cost in sequence:
            answers[name].append(await limiter.hit(budget, key, cost=cost))
            stats = await limiter.get_window_stats(budget, key)
            answers[name].append(stats.remaining)
        await limiter.clear(budget, "a")
        answers[name].append(await limiter.test(budget, "a", cost=7))
    assert answers["ours"] == answers["theirs"]
    assert False in answers["ours"]
