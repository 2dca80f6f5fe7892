"""Throughput: the requests a second one uvicorn worker sustains with p99 under a bound.

Closed-loop clients, more of them at each step (1, 2, 4, ... 32), each step bounded in
time and count; the figure is the best rate among the steps whose p99 stayed under the
bound.

Each step also reads the CPU time of the processes an endpoint names (the gateway worker,
its DynamoDB backend, this load client), so a figure says which of them was the limit: a
worker near 100% of a core is; a backend or client near it means the figure is theirs."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

CONCURRENCY = (1, 2, 4, 8, 16, 32)
STEP_SECONDS = 3.0
STEP_MAX_REQUESTS = 3000
P99_LIMIT_MS = 50.0

#: A process's user plus system CPU seconds so far.
CpuClock = Callable[[], float]


@dataclass(frozen=True)
class Endpoint:
    send: Callable[[], Awaitable[Any]]
    #: What answers its DynamoDB calls, for the report.
    backend: str = ""
    #: The processes whose CPU each step reports, by role ("worker", "backend", "client").
    clocks: Mapping[str, CpuClock] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    concurrency: int
    requests: int
    per_second: float
    p99_ms: float
    #: CPU milliseconds per request of each process the endpoint names.
    cpu_ms: dict[str, float] = field(default_factory=dict)

    def busy(self, role: str) -> float | None:
        """The share of one core that process used during the step, in percent."""
        per_request = self.cpu_ms.get(role)
        return None if per_request is None else per_request * self.per_second / 10


@dataclass(frozen=True)
class Throughput:
    name: str
    steps: tuple[Step, ...]
    backend: str = ""

    @property
    def best(self) -> Step | None:
        within = [step for step in self.steps if step.p99_ms < P99_LIMIT_MS]
        return max(within, key=lambda step: step.per_second) if within else None

    @property
    def per_second(self) -> float:
        best = self.best
        return best.per_second if best is not None else 0.0

    @property
    def worker_cpu_ms(self) -> float | None:
        """The worker's CPU per request over every step: the rate one busy core allows is
        1000 / this, whatever the p99 (a figure the shared machine's load moves less)."""
        steps = [step for step in self.steps if "worker" in step.cpu_ms]
        requests = sum(step.requests for step in steps)
        if not requests:
            return None
        return sum(step.cpu_ms["worker"] * step.requests for step in steps) / requests

    def as_json(self) -> dict[str, Any]:
        best = self.best
        worker = self.worker_cpu_ms
        return {
            "name": self.name,
            "backend": self.backend,
            "p99_limit_ms": P99_LIMIT_MS,
            "requests_per_second": round(self.per_second, 1),
            "concurrency": best.concurrency if best else None,
            "worker_cpu_ms": round(worker, 3) if worker is not None else None,
            "steps": [step.__dict__ for step in self.steps],
        }


async def step(endpoint: Endpoint, concurrency: int) -> Step:
    send = endpoint.send
    latencies: list[float] = []
    deadline = time.monotonic() + STEP_SECONDS

    async def client() -> None:
        while time.monotonic() < deadline and len(latencies) < STEP_MAX_REQUESTS:
            begin = time.perf_counter()
            await send()
            latencies.append(time.perf_counter() - begin)

    cpu_before = {role: clock() for role, clock in endpoint.clocks.items()}
    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    cpu_ms = {
        role: round((clock() - cpu_before[role]) / len(latencies) * 1000, 3)
        for role, clock in endpoint.clocks.items()
    }
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)] * 1000
    per_second = round(len(latencies) / elapsed, 1)
    return Step(concurrency, len(latencies), per_second, round(p99, 1), cpu_ms)


async def sustained(endpoints: dict[str, Endpoint]) -> list[Throughput]:
    """Each endpoint's steps, taken in turns at each concurrency (side by side on a shared,
    noisy machine); an endpoint stops after two steps in a row over the bound."""
    for endpoint in endpoints.values():
        for _ in range(5):
            await endpoint.send()  # warm-up: parsing, plans and the pool's connections
    steps: dict[str, list[Step]] = {name: [] for name in endpoints}
    for concurrency in CONCURRENCY:
        for name, endpoint in endpoints.items():
            taken = steps[name]
            if len(taken) >= 2 and all(s.p99_ms >= P99_LIMIT_MS for s in taken[-2:]):
                continue
            taken.append(await step(endpoint, concurrency))
    return [
        Throughput(name, tuple(taken), endpoints[name].backend) for name, taken in steps.items()
    ]
