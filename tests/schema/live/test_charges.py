"""A fan-out charges each principal once, and falls back to one charge each when refused."""

from __future__ import annotations

import asyncio

from schema.live.charges import CoalescedCharge
from schema.principal import Principal

DASHBOARD_A = Principal("dash-a", frozenset({"dashboard"}))
DASHBOARD_B = Principal("dash-b", frozenset({"dashboard"}))


async def test_charges_of_one_turn_are_one_call_per_principal() -> None:
    calls: list[tuple[str, int]] = []

    async def charge(principal: Principal, cost: int) -> float:
        calls.append((principal.sub, cost))
        return 0.0

    coalesced = CoalescedCharge(charge)
    waits = await asyncio.gather(
        *(coalesced(DASHBOARD_A, 2) for _ in range(100)),
        *(coalesced(DASHBOARD_B, 1) for _ in range(3)),
    )
    assert waits == [0.0] * 103
    assert sorted(calls) == [("dash-a", 200), ("dash-b", 3)]


async def test_a_refused_sum_is_charged_again_one_by_one() -> None:
    calls: list[int] = []

    async def charge(principal: Principal, cost: int) -> float:
        calls.append(cost)
        # The budget holds 5 points: the sum does not fit, each alone does until spent.
        spent = sum(c for c in calls[1:])
        return 0.0 if cost == 1 and spent <= 5 else 2.0

    coalesced = CoalescedCharge(charge)
    waits = await asyncio.gather(*(coalesced(DASHBOARD_A, 1) for _ in range(8)))
    assert calls[0] == 8
    assert waits.count(0.0) == 5
    assert waits.count(2.0) == 3
