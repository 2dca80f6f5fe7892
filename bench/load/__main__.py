"""`make load`: the gateway on its production topology under an open-loop load.

    .venv/bin/python -m bench.load [--requests 30000] [--rate 12] [--throttled-requests 3000]

Phase 1: `--requests` at `--rate` a second through nginx to two replicas over dynalite;
halfway, replica-1 is SIGTERMed and started again. Target: 0 wrong, 0 failed, 0 lost
writes, no error at all. Phase 2: the replicas restarted (one at a time) behind a proxy
that throttles `--throttle` of DynamoDB calls: still 0 wrong, 0 failed, 0 lost writes, and
only DYNAMODB_UNAVAILABLE, on exactly the fields that could not be read.
Live phase (bench/load/live.py): a second topology over moto's server (dynalite has no
streams) with subscriptions on and the change feed through Redis: `--live-subscriptions`
open through nginx while `--live-writes` land (half straight to DynamoDB, half through the
mutation) with a rolling restart: 0 missed, and the latency from write to event.
Writes phase (bench/load/writes.py): a third topology over moto's server (dynalite has no
TransactWriteItems), INSIGHT_IDEMPOTENCY=required: `--writes` mutations of every kind, each
with its own Idempotency-Key, retried with it until answered, while both replicas are
restarted in turn: 0 duplicated, 0 lost, every retried answer its first. Alone:

    .venv/bin/python -m bench.load writes [--writes 320] [--writes-rate R]

Prints one table a phase; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.load.driver import PhaseResult, fault_free_answers, run_phase
from bench.load.live import enable_streams, live_problems, run_live_phase
from bench.load.live import report as live_report
from bench.load.moto_process import MotoServer
from bench.load.topology import Topology, stop, topology
from bench.load.workload import (
    CLASSES,
    UNAVAILABLE,
    Tokens,
    jobs,
    lost_writes,
    seed,
    tokens,
)
from bench.load.writes import (
    WRITES_SETTINGS,
    run_writes_phase,
    seed_writes,
    write_jobs,
    writes_problems,
)
from bench.load.writes import report as writes_report
from bench.processes import ROOT


def report(result: PhaseResult) -> str:
    lines = [
        f"### {result.name}",
        "",
        "| class | requests | wrong | failed | p50 ms | p99 ms | errors by code |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for kind in CLASSES:
        stats = result.stats[kind]
        codes = ", ".join(f"{code} {n}" for code, n in sorted(stats.codes.items())) or "-"
        lines.append(
            f"| {kind} | {len(stats.latencies)} | {len(stats.wrong)} | {len(stats.failed)} | "
            f"{stats.percentile_ms(0.5):.1f} | {stats.percentile_ms(0.99):.1f} | {codes} |"
        )
    achieved = result.answered / max(result.elapsed, 1e-9)
    lines += [
        "",
        f"- arrival rate {result.rate:.0f}/s; {result.answered} of {result.due} answered in "
        f"{result.elapsed:.1f} s: {achieved:.0f}/s achieved",
        f"- writes read back from DynamoDB: {len(result.written)}, lost {len(result.lost)}",
    ]
    for name, away in result.restarts:
        lines.append(f"- rolling restart: {name} SIGTERMed and ready again in {away:.1f} s")
    for name, rss in result.rss.items():
        first, last = rss.get("20%", float("nan")), rss.get("100%", float("nan"))
        note = (
            " (a new process since the restart)"
            if any(n == name for n, _ in result.restarts)
            else ""
        )
        lines.append(
            f"- {name} RSS {first:.1f} MiB at 20%, {last:.1f} MiB at 100% "
            f"({(last - first) / first * 100:+.1f}%){note}"
        )
    cpu = ", ".join(
        f"{role} {average:.0f}% (peak {peak:.0f}%)"
        for role, (average, peak) in sorted(result.cpu.items(), key=lambda kv: -kv[1][0])
    )
    lines.append(f"- CPU, % of one core, average (peak over 1 s): {cpu}")
    for stats in result.stats.values():
        lines += [f"  - wrong: {reason}" for reason in stats.wrong[:5]]
        lines += [f"  - failed: {reason}" for reason in stats.failed[:5]]
    lines += [f"  - lost: {reason}" for reason in result.lost[:5]]
    return "\n".join(lines)


def missed(result: PhaseResult, *, errors_allowed: bool) -> list[str]:
    problems = []
    if result.wrong or result.failed or result.lost:
        problems.append(
            f"{result.name}: {result.wrong} wrong, {result.failed} failed, "
            f"{len(result.lost)} lost writes"
        )
    codes = {code for stats in result.stats.values() for code in stats.codes}
    if codes - ({UNAVAILABLE} if errors_allowed else set()):
        problems.append(f"{result.name}: error codes {sorted(codes)}")
    return problems


async def run(topo: Topology, args: argparse.Namespace) -> int:
    given = tokens()
    expected = await fault_free_answers(topo.url, given)
    endpoint = topo.backend.endpoint_url
    plain = await run_phase(
        "No faults, one rolling restart",
        topo,
        list(jobs(args.requests, "plain", 42, given)),
        expected,
        rate=args.rate,
        time_limit=args.time_limit,
        restart_at=0.5,
    )
    plain.lost = await lost_writes(endpoint, plain.written)
    print(report(plain), flush=True)
    problems = missed(plain, errors_allowed=False)
    if args.throttled_requests:
        throttled = await throttled_phase(topo, args, given, expected)
        print("\n" + report(throttled), flush=True)
        problems += missed(throttled, errors_allowed=True)
        if not any(stats.codes for stats in throttled.stats.values()):
            print("(no request of the throttled phase failed past its retries)")
    print("\nRESULT:", "; ".join(problems) if problems else "OK", flush=True)
    return 1 if problems else 0


async def throttled_phase(
    topo: Topology, args: argparse.Namespace, given: Tokens, expected: dict[tuple[str, str], Any]
) -> PhaseResult:
    endpoint = topo.backend.endpoint_url
    proxy, port = await asyncio.to_thread(
        start_throttle_proxy, endpoint, args.throttle, topo.workdir / "throttle-proxy.log"
    )
    try:
        await asyncio.to_thread(topo.point_replicas_at, f"http://127.0.0.1:{port}")
        result = await run_phase(
            f"{args.throttle:.0%} of DynamoDB calls throttled",
            topo,
            list(jobs(args.throttled_requests, "throttled", 43, given)),
            expected,
            rate=args.rate,
            time_limit=args.time_limit,
        )
        result.lost = await lost_writes(endpoint, result.written)
        return result
    finally:
        assert proxy.stdin is not None
        proxy.stdin.close()
        try:
            proxy.wait(timeout=10)
        except subprocess.TimeoutExpired:
            stop(proxy)


def start_throttle_proxy(
    endpoint: str, share: float, log: Path
) -> tuple[subprocess.Popen[bytes], int]:
    with log.open("wb") as output:
        proxy = subprocess.Popen(
            [sys.executable, "-m", "bench.load.throttle_proxy", endpoint, str(share)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=output,
        )
    assert proxy.stdout is not None
    return proxy, int(proxy.stdout.readline())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=30_000)
    parser.add_argument("--rate", type=float, default=12.0, help="arrivals a second")
    parser.add_argument("--throttled-requests", type=int, default=3_000)
    parser.add_argument("--throttle", type=float, default=0.1, help="share of calls throttled")
    parser.add_argument(
        "--time-limit", type=float, default=3600.0, help="seconds per phase, at most"
    )
    parser.add_argument(
        "--live-subscriptions",
        type=int,
        default=10_000,
        help="frontend sockets, one viewerChanged each (ten dashboard sockets beside them)",
    )
    parser.add_argument("--live-writes", type=int, default=600)
    parser.add_argument(
        "--live-rate",
        type=float,
        default=None,
        help="writes a second (default: a tenth of what moto sustains, at most 10)",
    )
    parser.add_argument("--writes", type=int, default=320, help="the writes phase's mutations")
    parser.add_argument(
        "--writes-rate",
        type=float,
        default=None,
        help="writes a second (default: a tenth of moto's TransactWriteItems rate, at most 4)",
    )
    parser.add_argument("--logs", default=str(ROOT / "test-artifacts" / "load"))
    only_writes = sys.argv[1:2] == ["writes"]
    args = parser.parse_args(sys.argv[2:] if only_writes else sys.argv[1:])
    workdir = Path(args.logs).resolve()
    print(f"logs and nginx.conf in {workdir}/", flush=True)
    if only_writes:
        return writes_phase(workdir, args)
    status = 0
    if args.requests:
        with topology(
            workdir, lambda endpoint: print(f"seeded {asyncio.run(seed(endpoint))} items")
        ) as topo:
            status = asyncio.run(run(topo, args))
    if args.live_subscriptions:
        with topology(
            workdir / "live",
            seed_live,
            backend=lambda: MotoServer(workdir / "live" / "moto.log"),
            live=True,
        ) as topo:
            status = max(status, asyncio.run(run_live(topo, args)))
    if args.writes:
        status = max(status, writes_phase(workdir, args))
    return status


def writes_phase(workdir: Path, args: argparse.Namespace) -> int:
    jobs = write_jobs(args.writes)
    with topology(
        workdir / "writes",
        lambda endpoint: asyncio.run(seed_writes(endpoint, jobs)),
        backend=lambda: MotoServer(workdir / "writes" / "moto.log", serial=True),
        settings=WRITES_SETTINGS,
    ) as topo:
        moto_log = workdir / "writes" / "moto.log"
        result = asyncio.run(run_writes_phase(topo, jobs, args.writes_rate, moto_log))
    print("\n" + writes_report(result), flush=True)
    problems = writes_problems(result)
    print("\nRESULT (writes):", "; ".join(problems) if problems else "OK", flush=True)
    return 1 if problems else 0


def seed_live(endpoint: str) -> None:
    print(f"seeded {asyncio.run(seed(endpoint))} items (moto)")
    asyncio.run(enable_streams(endpoint))


async def run_live(topo: Topology, args: argparse.Namespace) -> int:
    result = await run_live_phase(
        topo,
        tokens(),
        subscriptions=args.live_subscriptions,
        writes=args.live_writes,
        rate=args.live_rate,
    )
    print("\n" + live_report(result), flush=True)
    problems = live_problems(result)
    print("\nRESULT (live):", "; ".join(problems) if problems else "OK", flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
