"""Issue 42's surfaces, measured on a gateway process (uvicorn, one worker, 127.0.0.1, the
image's `--http` protocol) over a moto server: part of `python -m bench hostile`.

1. Replays: one keyed `markInsightsRefresh`, then 1,000 replays of it, one at a time: the
   gateway's CPU (its process's clock) per replay, and how many were charged (the writer's
   `RateLimit` points left), beside 1,000 unkeyed runs of the same mutation.
2. Partial heads: 100 connections each holding an unterminated head just under the bound
   (15 KiB), then 100 each sending up to 16 MB of one header (refused with 431 after the
   bound): the gateway's RSS growth, and the bytes each could send before the refusal.
Bounded: fixed counts, every read with a timeout, every process stopped by its id.
"""

from __future__ import annotations

import asyncio
import os
import re
from datetime import timedelta
from pathlib import Path

import aioboto3
import httpx

from bench import processes
from bench.load.moto_process import MotoServer
from bench.run import SECRET, common_env
from gateway.auth.tokens import mint_token
from loaders.tables import TableNames, create_tables
from schema.clock import SystemClock
from schema.principal import WRITER
from support.raw_heads import sent_until_answered

REPLAYS = 1000
HEADS = 100
#: Just under INSIGHT_MAX_HEAD_BYTES (16 KiB): held, not refused, until the head deadline.
PARTIAL_BYTES = 15 * 1024
#: The probe's header: 16 MB, never terminated.
PROBE_BYTES = 16 * 1024 * 1024
PROBE_HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Probe: "
LABEL = "mutation($u: ID!) { markInsightsRefresh(input: {userId: $u}) { label } }"
WAIT_SECONDS = 30.0


def _rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert match is not None
    return int(match.group(1))


async def _replays(url: str, pid: int) -> None:
    token = mint_token(SECRET, "bench-writer", [WRITER], timedelta(hours=1), SystemClock())
    headers = {"Authorization": f"Bearer {token}"}
    body = {"query": LABEL, "variables": {"u": "u-1"}}
    async with httpx.AsyncClient(base_url=url, timeout=WAIT_SECONDS) as http:

        async def run(count: int, keyed: bool) -> tuple[float, int]:
            sent = {**headers, "Idempotency-Key": '"bench-replay"'} if keyed else headers
            last = None
            started = processes.cpu_seconds(pid)
            for _ in range(count):
                last = await http.post("/graphql", json=body, headers=sent)
                assert last.status_code == 200, last.text
            spent = processes.cpu_seconds(pid) - started
            assert last is not None
            left = int(re.search(r"r=(\d+)", last.headers["RateLimit"]).group(1))  # type: ignore[union-attr]
            return spent, left

        await run(1, keyed=True)  # the first run, recorded
        _, before = await run(1, keyed=True)
        replayed, after = await run(REPLAYS, keyed=True)
        unkeyed, _ = await run(REPLAYS, keyed=False)
    print(
        f"{REPLAYS} replays of a keyed mutation: {replayed * 1e6 / REPLAYS:.0f} µs of the "
        f"gateway's CPU each ({replayed:.2f} s in all); {before - after} points charged "
        f"({(before - after) / REPLAYS:.0f} a replay, the mutation's cost)"
    )
    print(
        f"{REPLAYS} unkeyed runs of the same mutation: {unkeyed * 1e6 / REPLAYS:.0f} µs each "
        f"(a replay: {replayed / unkeyed:.2f}x)"
    )


async def _heads(port: int, pid: int) -> None:
    held = []
    start = _rss_kib(pid)
    for _ in range(HEADS):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ")
        writer.write(b"a" * PARTIAL_BYTES)
        await writer.drain()
        held.append((reader, writer))
    await asyncio.sleep(1.0)  # read by the gateway
    partial = _rss_kib(pid) - start
    for _, writer in held:
        writer.close()
    sent_before_refusal = []
    refused = 0
    start = _rss_kib(pid)
    for _ in range(HEADS):
        line, sent = await asyncio.to_thread(sent_until_answered, port, PROBE_HEAD, PROBE_BYTES)
        refused += line.startswith(b"HTTP/1.1 431")
        sent_before_refusal.append(sent)
    grown = _rss_kib(pid) - start
    print(
        f"{HEADS} partial heads of {PARTIAL_BYTES // 1024} KiB held: the gateway's RSS "
        f"+{partial / 1024:.1f} MiB ({partial / HEADS:.0f} KiB a connection)"
    )
    print(
        f"{HEADS} heads of up to 16 MB: {refused} answered 431 (each client had put at most "
        f"{max(sent_before_refusal) // 1024} KiB into the loopback's socket buffers by "
        f"then); RSS +{grown / 1024:.1f} MiB "
        "(the probe: 8 such heads raised it by 166 MiB)"
    )


async def _prepare(endpoint: str) -> None:
    async with aioboto3.Session().client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1"
    ) as client:
        await create_tables(client, TableNames(), ttl=False, streams=False)


def surfaces_figures() -> None:
    # moto accepts any credentials; these keep botocore from looking for real ones.
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    moto = MotoServer()
    moto.start()
    try:
        asyncio.run(_prepare(moto.endpoint_url))
        port = processes.free_port()
        env = {**common_env(moto.endpoint_url), "INSIGHT_RATE_LIMIT_WRITER": "999999999/hour"}
        args = [
            *processes.gateway(port),
            "--http",
            "gateway.live_http.server_protocol:GatewayHttpProtocol",
        ]
        with processes.running(args, port, env) as server:
            asyncio.run(_heads(port, server.pid))
            asyncio.run(_replays(f"http://127.0.0.1:{port}", server.pid))
    finally:
        moto.stop()
