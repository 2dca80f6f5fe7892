"""A frontend fleet on one replica: N sockets, each its own user's, each with `per_socket`
`viewerChanged` subscriptions, held open on a gateway under uvicorn in its own process (the
image's command: its `--ws` and `--http` protocols, its factory), over moto's server.

It measures the gateway's RSS (/proc VmRSS) per socket over the whole fleet, the time to open
it, then the latency of a change to 100 of its users with every socket open (each written
through the mutation at once, timed from the send to the user's event), and the re-reads per
change by reason from `gateway_subscription_rereads_total`.
Bounded: fixed counts, every wait with a timeout, the server on loopback and stopped.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import sys
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.processes import free_port, running
from gateway.auth.tokens import mint_token
from schema.clock import SystemClock
from schema.live import REREAD_REASONS
from schema.principal import WRITER
from support.metrics_text import total

SECRET = "bench-socket-fleet-" + "0" * 32
QUERY = "subscription Fleet { viewerChanged { id incomeVerification { amountInCents } } }"
SET_VERIFICATION = """mutation FleetWrite($input: SetIncomeVerificationInput!) {
  setIncomeVerification(input: $input) { amountInCents } }"""
PROTOCOL = "gateway.subscriptions.server_protocol:GatewayWebSocketProtocol"
#: The image's `--http`: a socket's upgrade is read by it.
HTTP_PROTOCOL = "gateway.live_http.server_protocol:GatewayHttpProtocol"
WAIT = 120.0
#: Sockets opened at once while the fleet is built.
OPENING = 100
CHANGED_USERS = 100
REREADS = "gateway_subscription_rereads_total"


@dataclass
class FleetResult:
    sockets: int
    per_socket: int
    compression: bool
    ws: str
    rss_before_kib: int = 0
    rss_after_kib: int = 0
    open_seconds: float = 0.0
    #: From each write's send to its event.
    latencies: list[float] = field(default_factory=list)
    #: From each write's send to the mutation's answer (moto's write, under 100 at once).
    answers: list[float] = field(default_factory=list)
    #: From each mutation's answer (its commit is before) to its event.
    after_answer: list[float] = field(default_factory=list)
    rereads: dict[str, float] = field(default_factory=dict)
    #: What each frontend holds: a socket, or an SSE stream (bench/sse_fleet.py).
    transport: str = "socket"

    @property
    def kib_per_socket(self) -> float:
        return (self.rss_after_kib - self.rss_before_kib) / self.sockets

    def percentile(self, share: float, of: list[float] | None = None) -> float:
        ordered = sorted(self.latencies if of is None else of)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0

    def lines(self) -> list[str]:
        per_change = {r: n / CHANGED_USERS for r, n in self.rereads.items()}
        met = "met" if self.kib_per_socket <= 20 else "NOT met"
        return [
            f"fleet: {self.sockets} {self.transport}s x {self.per_socket} viewerChanged, "
            f"compression {'on' if self.compression else 'off'}, uvicorn {self.ws}",
            f"  gateway RSS {self.rss_before_kib} KiB -> {self.rss_after_kib} KiB: "
            f"{self.kib_per_socket:.1f} KiB a {self.transport} with its subscription(s) "
            f"(target <= 20 KiB: {met})",
            f"  opened in {self.open_seconds:.1f} s "
            f"({self.sockets / max(self.open_seconds, 1e-9):.0f} {self.transport}s/s)",
            f"  a change to {len(self.latencies)} users, all {self.transport}s open: "
            f"p50 {self.percentile(0.5) * 1000:.0f} ms, p99 {self.percentile(0.99) * 1000:.0f} ms "
            f"(mean {statistics.fmean(self.latencies or [0]) * 1000:.0f} ms; "
            "targets 1,000 and 2,000 ms), from each write's send",
            f"    of which the mutation's own answer (moto, {len(self.answers)} writes at once): "
            f"p50 {self.percentile(0.5, self.answers) * 1000:.0f} ms, "
            f"p99 {self.percentile(0.99, self.answers) * 1000:.0f} ms; from its answer "
            f"(its commit is before) to the event: p50 "
            f"{self.percentile(0.5, self.after_answer) * 1000:.0f} ms, "
            f"p99 {self.percentile(0.99, self.after_answer) * 1000:.0f} ms",
            "  re-reads per change: "
            + ", ".join(f"{r} {n:.2f}" for r, n in per_change.items())
            + f" (all {sum(per_change.values()):.2f})",
        ]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def raise_own_file_limit() -> int:
    """This process holds the client side of every socket: its soft limit goes to the hard."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def token(sub: str, *roles: str) -> str:
    return mint_token(SECRET, sub, list(roles), timedelta(hours=2), SystemClock())


async def open_frontend(
    stack: AsyncExitStack, url: str, user: str, per_socket: int
) -> ClientConnection:
    socket = await stack.enter_async_context(
        connect(
            url,
            subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
            open_timeout=WAIT,
            # Unread pings pile up here, never back-pressure the server.
            max_queue=None,
            ping_interval=None,
        )
    )
    init = {"type": "connection_init", "payload": {"Authorization": f"Bearer {token(user)}"}}
    await socket.send(json.dumps(init))
    assert json.loads(await asyncio.wait_for(socket.recv(), WAIT))["type"] == "connection_ack"
    for n in range(per_socket):
        await socket.send(
            json.dumps({"id": str(n), "type": "subscribe", "payload": {"query": QUERY}})
        )
    return socket


async def scrape(http: httpx.AsyncClient) -> str:
    return (await http.get("/metrics", timeout=30)).text


async def wait_for_subscriptions(http: httpx.AsyncClient, count: int) -> None:
    deadline = time.monotonic() + WAIT
    while total(await scrape(http), "gateway_subscriptions") < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"fewer than {count} subscriptions after {WAIT} s")
        await asyncio.sleep(0.5)


async def next_event(socket: ClientConnection) -> float:
    """When the next `next` message arrives (pings skipped)."""
    async with asyncio.timeout(WAIT):
        while True:
            message = json.loads(await socket.recv())
            if message["type"] == "next":
                return time.perf_counter()


async def write(http: httpx.AsyncClient, user: str, n: int) -> tuple[float, float]:
    """The write of `user`'s income verification through the mutation: when it was sent,
    and when it was answered."""
    variables = {
        "input": {
            "userId": user,
            "txnName": "ACME PAYROLL",
            "txnId": f"txn-{user}",
            "amountInCents": 10_000_000 + n,
            "payFrequency": "biweekly",
            "institutionId": "ins_109508",
            "verificationStatus": "approved",
            "isValid": True,
            "notes": ["socket fleet"],
            "verificationSource": "ollie",
        }
    }
    started = time.perf_counter()
    answer = await http.post(
        "/graphql",
        json={"query": SET_VERIFICATION, "variables": variables},
        headers={"Authorization": f"Bearer {token(f'fleet-writer-{n}', WRITER)}"},
        timeout=WAIT,
    )
    body = answer.json()
    if body.get("errors"):
        raise RuntimeError(f"the write for {user} failed: {body['errors']}")
    return started, time.perf_counter()


async def fleet(
    endpoint: str, sockets: int, per_socket: int, compression: bool, ws: str = PROTOCOL
) -> FleetResult:
    """`ws`: uvicorn's `--ws` (the gateway's protocol, or uvicorn's own to compare)."""
    raise_own_file_limit()
    result = FleetResult(sockets, per_socket, compression, "--ws " + ws.rsplit(":", 1)[-1])
    port = free_port()
    env = {
        "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint,
        "INSIGHT_SUBSCRIPTIONS": "true",
        "INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS": str(sockets + 10),
        "INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION": str(max(per_socket, 1)),
        "INSIGHT_SUBSCRIPTIONS_COMPRESSION": "true" if compression else "false",
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_LOG_FORMAT": "console",
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "gateway.asgi:create_app_from_environ",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log",
        "--ws", ws, "--http", HTTP_PROTOCOL,
        # For uvicorn's own protocols; the gateway's reads INSIGHT_SUBSCRIPTIONS_COMPRESSION.
        "--ws-per-message-deflate", "true" if compression else "false",
    ]  # fmt: skip
    url = f"ws://127.0.0.1:{port}/graphql"
    users = [f"fleet-{n}" for n in range(sockets)]
    with running(command, port, {**os.environ, **env}) as process:
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http,
            AsyncExitStack() as stack,
        ):
            await open_frontend(stack, url, "fleet-warm", 1)
            await wait_for_subscriptions(http, 1)
            await asyncio.sleep(1.0)
            result.rss_before_kib = rss_kib(process.pid)
            started = time.perf_counter()
            opened: list[ClientConnection] = []
            for first in range(0, sockets, OPENING):
                batch = users[first : first + OPENING]
                opened += await asyncio.gather(
                    *(open_frontend(stack, url, user, per_socket) for user in batch)
                )
            await wait_for_subscriptions(http, sockets * per_socket + 1)
            result.open_seconds = time.perf_counter() - started
            await asyncio.sleep(3.0)
            result.rss_after_kib = rss_kib(process.pid)
            before = await scrape(http)
            step = max(1, sockets // CHANGED_USERS)
            chosen = list(range(0, sockets, step))[:CHANGED_USERS]
            events = [asyncio.create_task(next_event(opened[n])) for n in chosen]
            sent = await asyncio.gather(*(write(http, users[n], n) for n in chosen))
            arrived = await asyncio.gather(*events)
            pairs = list(zip(arrived, sent, strict=True))
            result.latencies = [at - send for at, (send, _) in pairs]
            result.answers = [answered - send for _, (send, answered) in pairs]
            result.after_answer = [at - answered for at, (_, answered) in pairs]
            await asyncio.sleep(3.0)  # the streams' copies of the writes, re-read too
            after = await scrape(http)
            result.rereads = {
                reason: total(after, REREADS, reason=reason) - total(before, REREADS, reason=reason)
                for reason in REREAD_REASONS
            }
    return result
