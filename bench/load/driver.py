"""The open-loop driver: requests leave at a fixed arrival rate whatever the answers do, so
a slow answer cannot hide behind a closed loop; each latency counts from the instant its
request was due. Mid-phase a replica may be restarted (SIGTERM, then started again).

Bounded: a request count, a time limit, a cap on requests in flight (a request due while
the cap is reached counts as failed, never as silently skipped).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bench.load.percentiles import percentile_ms
from bench.load.topology import Topology, cpu_seconds, rss_mib
from bench.load.workload import CLASSES, MUTATION, Job, Tokens, baseline_jobs, expected_key, verdict

MAX_IN_FLIGHT = 2000
REQUEST_TIMEOUT = 60.0
CPU_SAMPLE_SECONDS = 1.0


@dataclass
class ClassStats:
    latencies: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    codes: Counter[str] = field(default_factory=Counter)

    def percentile_ms(self, share: float) -> float:
        return percentile_ms(self.latencies, share)


@dataclass
class PhaseResult:
    name: str
    rate: float
    due: int
    elapsed: float = 0.0
    stats: dict[str, ClassStats] = field(default_factory=lambda: {k: ClassStats() for k in CLASSES})
    #: Each replica's RSS (MiB) when 20% of the requests were sent, and after the last answer.
    rss: dict[str, dict[str, float]] = field(default_factory=dict)
    #: Average and peak (over 1 s) CPU of each process role, in % of one core.
    cpu: dict[str, tuple[float, float]] = field(default_factory=dict)
    restarts: list[tuple[str, float]] = field(default_factory=list)
    written: list[Job] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)

    @property
    def answered(self) -> int:
        return sum(len(s.latencies) for s in self.stats.values())

    @property
    def wrong(self) -> int:
        return sum(len(s.wrong) for s in self.stats.values())

    @property
    def failed(self) -> int:
        return sum(len(s.failed) for s in self.stats.values())


class CpuMeter:
    """Samples every process of the topology (and this driver) each second: a replica
    started mid-phase is a new process, and its CPU counts from its first sample."""

    def __init__(self, topology: Topology) -> None:
        self._topology = topology
        self._seen: dict[int, tuple[str, float, float]] = {}
        self._peaks: dict[str, float] = {}
        self._started = time.monotonic()

    def _roles(self) -> dict[str, list[int]]:
        return {**self._topology.pids(), "load driver": [os.getpid()]}

    def sample(self) -> None:
        by_role: dict[str, float] = {}
        for role, pids in self._roles().items():
            for pid in pids:
                now = cpu_seconds(pid)
                first = self._seen.get(pid, (role, now, now))[1]
                last = self._seen.get(pid, (role, now, now))[2]
                if now:
                    self._seen[pid] = (role, first, now)
                    by_role[role] = by_role.get(role, 0.0) + now - last
        for role, used in by_role.items():
            self._peaks[role] = max(self._peaks.get(role, 0.0), used / CPU_SAMPLE_SECONDS * 100)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(CPU_SAMPLE_SECONDS)
            self.sample()

    def averages(self) -> dict[str, tuple[float, float]]:
        elapsed = max(time.monotonic() - self._started, 1e-9)
        totals: dict[str, float] = {}
        for role, first, last in self._seen.values():
            totals[role] = totals.get(role, 0.0) + last - first
        return {
            role: (total / elapsed * 100, self._peaks.get(role, 0.0))
            for role, total in totals.items()
        }


async def run_phase(
    name: str,
    topology: Topology,
    jobs: Sequence[Job],
    expected: dict[tuple[str, str], Any],
    *,
    rate: float,
    time_limit: float,
    restart_at: float | None = None,
) -> PhaseResult:
    result = PhaseResult(name, rate, len(jobs))
    loop = asyncio.get_running_loop()
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
    connector = aiohttp.TCPConnector(limit=512)
    in_flight: set[asyncio.Task[None]] = set()
    meter = CpuMeter(topology)
    meter.sample()
    sampling = asyncio.create_task(meter.run())
    restarting: asyncio.Task[float] | None = None

    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:

        async def send(job: Job, due: float) -> None:
            stats = result.stats[job.kind]
            headers = {"Authorization": f"Bearer {job.token}"}
            try:
                async with session.post(
                    topology.url + "/graphql", json=job.body, headers=headers
                ) as answer:
                    status, text = answer.status, await answer.text()
            except (aiohttp.ClientError, TimeoutError) as error:
                stats.failed.append(f"{job.kind}: {type(error).__name__} {error}")
                return
            finally:
                stats.latencies.append(loop.time() - due)
            if status != 200:
                stats.failed.append(f"{job.kind}: HTTP {status} {text[:200]}")
                return
            body = json.loads(text)
            for problem in body.get("errors") or []:
                stats.codes[str((problem.get("extensions") or {}).get("code"))] += 1
            reason = verdict(job, body, expected)
            if reason is not None:
                stats.wrong.append(f"{job.kind} {job.subject}: {reason}")
            elif job.kind == MUTATION and not body.get("errors"):
                result.written.append(job)

        started = loop.time()
        restart_index = int(len(jobs) * restart_at) if restart_at is not None else -1
        rss_index = len(jobs) // 5
        for index, job in enumerate(jobs):
            due = started + index / rate
            if due - started > time_limit:
                for rest in jobs[index:]:
                    result.stats[rest.kind].failed.append("not sent: the phase's time limit")
                break
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if index == rss_index:
                result.rss = {r.name: {"20%": rss_mib(r.pid)} for r in topology.replicas}
            if index == restart_index:
                replica = topology.replicas[0]
                restarting = asyncio.create_task(asyncio.to_thread(replica.restart))
            if len(in_flight) >= MAX_IN_FLIGHT:
                result.stats[job.kind].failed.append("not sent: too many in flight")
                continue
            task = asyncio.create_task(send(job, due))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
        if in_flight:
            await asyncio.wait(in_flight)
        result.elapsed = loop.time() - started
        if restarting is not None:
            result.restarts.append((topology.replicas[0].name, await restarting))
    sampling.cancel()
    meter.sample()
    result.cpu = meter.averages()
    for replica in topology.replicas:
        result.rss.setdefault(replica.name, {})["100%"] = rss_mib(replica.pid)
    return result


async def fault_free_answers(url: str, given: Tokens) -> dict[tuple[str, str], Any]:
    answers: dict[tuple[str, str], Any] = {}
    async with aiohttp.ClientSession() as session:

        async def read(job: Job) -> None:
            headers = {"Authorization": f"Bearer {job.token}"}
            async with session.post(url + "/graphql", json=job.body, headers=headers) as answer:
                body = await answer.json()
            if answer.status != 200 or body.get("errors"):
                raise RuntimeError(f"fault-free {job.kind} {job.subject}: {body}")
            answers[expected_key(job)] = body["data"]

        await asyncio.gather(*(read(job) for job in baseline_jobs(given)))
    return answers
