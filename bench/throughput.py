"""Throughput: the requests a second one uvicorn worker sustains with p99 under a bound.

Closed-loop clients, more of them at each step (1, 2, 4, ... 32), each step bounded in
time and count; the figure is the best rate among the steps whose p99 stayed under the
bound."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

CONCURRENCY = (1, 2, 4, 8, 16, 32)
STEP_SECONDS = 3.0
STEP_MAX_REQUESTS = 3000
P99_LIMIT_MS = 50.0


@dataclass(frozen=True)
class Step:
    concurrency: int
    requests: int
    per_second: float
    p99_ms: float


@dataclass(frozen=True)
class Throughput:
    name: str
    steps: tuple[Step, ...]

    @property
    def best(self) -> Step | None:
        within = [step for step in self.steps if step.p99_ms < P99_LIMIT_MS]
        return max(within, key=lambda step: step.per_second) if within else None

    @property
    def per_second(self) -> float:
        best = self.best
        return best.per_second if best is not None else 0.0

    def as_json(self) -> dict[str, Any]:
        best = self.best
        return {
            "name": self.name,
            "p99_limit_ms": P99_LIMIT_MS,
            "requests_per_second": round(self.per_second, 1),
            "concurrency": best.concurrency if best else None,
            "steps": [step.__dict__ for step in self.steps],
        }


async def step(send: Callable[[], Awaitable[Any]], concurrency: int) -> Step:
    latencies: list[float] = []
    deadline = time.monotonic() + STEP_SECONDS

    async def client() -> None:
        while time.monotonic() < deadline and len(latencies) < STEP_MAX_REQUESTS:
            begin = time.perf_counter()
            await send()
            latencies.append(time.perf_counter() - begin)

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)] * 1000
    return Step(concurrency, len(latencies), round(len(latencies) / elapsed, 1), round(p99, 1))


async def sustained(sends: dict[str, Callable[[], Awaitable[Any]]]) -> list[Throughput]:
    """Each endpoint's steps, taken in turns at each concurrency (side by side on a shared,
    noisy machine); an endpoint stops after two steps in a row over the bound."""
    for send in sends.values():
        for _ in range(5):
            await send()  # warm-up: parsing, plans and the pool's connections
    steps: dict[str, list[Step]] = {name: [] for name in sends}
    for concurrency in CONCURRENCY:
        for name, send in sends.items():
            taken = steps[name]
            if len(taken) >= 2 and all(s.p99_ms >= P99_LIMIT_MS for s in taken[-2:]):
                continue
            taken.append(await step(send, concurrency))
    return [Throughput(name, tuple(taken)) for name, taken in steps.items()]
