"""One budget charge per principal for a fan-out, instead of one per subscription."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from schema.live.ports import Charge
from schema.principal import Principal


@dataclass(slots=True)
class _Batch:
    cost: int = 0
    waiters: int = 0
    outcome: asyncio.Future[float] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class CoalescedCharge:
    """A `Charge` that sums the charges one principal makes in the same turn of the event
    loop (a re-read reaching its 200 subscriptions of one dashboard) into one call to the
    budgets' storage, so that a fan-out costs one look-up per principal, not one per
    subscription (1,000 at once timed out the storage's 0.5 s bound in the bench).

    When the sum does not fit, each waiter is charged on its own, as without coalescing:
    a sum larger than the whole budget would otherwise never fit."""

    def __init__(self, charge: Charge) -> None:
        self._charge = charge
        self._batches: dict[Principal, _Batch] = {}

    async def __call__(self, principal: Principal, cost: int) -> float:
        batch = self._batches.get(principal)
        if batch is None:
            batch = self._batches[principal] = _Batch()
            asyncio.get_running_loop().call_soon(self._send, principal)
        batch.cost += cost
        batch.waiters += 1
        wait = await asyncio.shield(batch.outcome)
        if wait > 0 and batch.waiters > 1:
            return await self._charge(principal, cost)
        return wait

    def _send(self, principal: Principal) -> None:
        batch = self._batches.pop(principal)
        task = asyncio.ensure_future(self._charge(principal, batch.cost))

        def settle(done: asyncio.Future[float]) -> None:
            if done.cancelled():
                batch.outcome.set_result(1.0)
            elif done.exception() is not None:
                batch.outcome.set_exception(done.exception())  # type: ignore[arg-type]
            else:
                batch.outcome.set_result(done.result())

        task.add_done_callback(settle)
