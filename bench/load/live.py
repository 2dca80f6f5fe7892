"""The live phase of `make load`: subscriptions through nginx on both replicas while writes
land, straight to DynamoDB (another service's writes) and through the gateway's mutation,
with a rolling restart in the middle.

Each write sets one user's income verification to a new, ever larger `amountInCents`; every
subscription watches one user's `incomeVerification { amountInCents }` (frontends through
`viewerChanged`, dashboards through `userChanged(ids:)`, ten to a socket). Every third
frontend holds its subscription on a GraphQL over SSE stream instead of a socket
(bench/load/sse_subscriber.py): at the restart its stream ends with `retry:` and it comes
back with `Last-Event-ID`; the figures are reported per transport. A write is seen by
a subscription when an event shows its amount or a larger one (a later write's, coalesced);
one that never is, by the end of the settle time, is missed. Latency counts from the
instant the write was sent (its commit is later), so it is an upper bound.

The replicas' coherent cache is on too: after each write straight to DynamoDB (another
service's: the writes the cache can only learn of from the feed), its user's `viewer`
query is polled through nginx every 250 ms until an answer shows the write (the time from the
write's send to that answer is its visibility), and every answer is judged: one that shows
less than a write answered more than the cache's lag bound before the query was sent is
wrong.

The DynamoDB is moto's server (dynalite has no streams): the writes go at a rate moto
sustains, measured first and reported (a tenth of it: see `run_live_phase`).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime

import aiohttp

from bench.load import transports
from bench.load.percentiles import percentile_ms
from bench.load.sse_subscriber import SseSubscriber
from bench.load.subscriber import Subscriber, Watch
from bench.load.topology import Topology, rss_mib
from bench.load.transports import TransportFigures
from bench.load.workload import USERS, Tokens, local_client
from loaders.codec import Item, to_wire
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.tables import TableNames
from schema.live import REREAD_REASONS
from support.metrics_text import Samples, samples, total

FRONTEND = """subscription LiveFrontend {
  viewerChanged(initial: true) { id incomeVerification { amountInCents } } }"""
DASHBOARD = """subscription LiveDashboard($ids: [ID!]!) {
  userChanged(ids: $ids, initial: true) { id incomeVerification { amountInCents } } }"""
SET_VERIFICATION = """mutation LiveWrite($input: SetIncomeVerificationInput!) {
  setIncomeVerification(input: $input) { amountInCents } }"""
#: Above every seeded amount, so that an event's amount names the write it shows.
FIRST_AMOUNT = 10_000_000
WATCHES_PER_DASHBOARD = 10
#: How fast the phase's sockets are first opened (20 s for 10,000).
CONNECTS_PER_SECOND = 500
#: Dashboards beside the frontends (each ten subscriptions on one socket).
DASHBOARD_SOCKETS = 10
#: Every this many frontends, one holds its subscription on an SSE stream (a third).
SSE_EVERY = 3
READY_SECONDS = 180.0
SETTLE_SECONDS = 30.0
IDLE_SECONDS = 3.0
STREAMED_TABLES = ("pave", "income_detection", "balance_settings")
VIEWER = "query LiveViewer { viewer { id incomeVerification { amountInCents } } }"
POLL_SECONDS = 0.25
VISIBLE_WITHIN_SECONDS = 10.0
#: INSIGHT_CACHE_MAX_LAG_SECONDS's default: how stale the feed may be before the cache is
#: bypassed, so the most an answer may trail a committed write.
CACHE_LAG_SECONDS = 2.0
REREADS = "gateway_subscription_rereads_total"


@dataclass(frozen=True, slots=True)
class Write:
    user: str
    amount: int
    via: str
    sent: float
    error: str | None
    answered: float = 0.0


@dataclass
class LiveResult:
    subscriptions: int
    sockets: int
    moto_writes_per_second: float
    rate: float
    writes: list[Write] = field(default_factory=list)
    elapsed: float = 0.0
    latencies: list[float] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    reconnects: int = 0
    #: The sockets' close codes, as the clients saw them (1012: a restart's), and the
    #: upgrades refused (503: a replica at INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS).
    closes: Counter[str] = field(default_factory=Counter)
    refused_upgrades: int = 0
    client_errors: list[str] = field(default_factory=list)
    restarts: list[tuple[str, float]] = field(default_factory=list)
    #: Per replica: open subscriptions (its own gauge) once all were open.
    spread: dict[str, float] = field(default_factory=dict)
    rss_before: dict[str, float] = field(default_factory=dict)
    rss_idle: dict[str, float] = field(default_factory=dict)
    rereads: float = 0.0
    #: The phase's re-reads by `reason` (change, initial, resync, clock).
    rereads_by_reason: dict[str, float] = field(default_factory=dict)
    ready_seconds: float = 0.0
    #: Seconds from a write's send to the first query answer showing it.
    visibility: list[float] = field(default_factory=list)
    invisible: list[str] = field(default_factory=list)
    #: Query answers: (user, sent, amount shown).
    answers: list[tuple[str, float, int | None]] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    failed_queries: list[str] = field(default_factory=list)
    cache: dict[str, float] = field(default_factory=dict)

    #: When the rolling restart began and when the replica was ready again (monotonic).
    restart_window: tuple[float, float] | None = None
    #: The latencies of the writes sent outside that window.
    quiet_latencies: list[float] = field(default_factory=list)
    #: The same figures per transport (`websocket`, `sse`).
    by_transport: dict[str, TransportFigures] = field(default_factory=dict)

    def percentile_ms(self, share: float, *, quiet: bool = False) -> float:
        return percentile_ms(self.quiet_latencies if quiet else self.latencies, share)

    @property
    def kib_per_socket(self) -> float:
        grown = sum(self.rss_idle.values()) - sum(self.rss_before.values())
        return grown * 1024 / max(self.sockets, 1)


Client = Subscriber | SseSubscriber


def subscribers(
    url: str, given: Tokens, count: int, dashboards: int = DASHBOARD_SOCKETS
) -> list[Client]:
    """`count` frontends (one socket each, `viewerChanged`, as a fleet of apps holds them;
    every SSE_EVERY-th one an SSE stream), and `dashboards` dashboard sockets (ten
    `userChanged` each), the users taken in turn."""
    made: list[Client] = []
    for n in range(count):
        user = USERS[n % len(USERS)]
        kind = SseSubscriber if n % SSE_EVERY == SSE_EVERY - 1 else Subscriber
        made.append(kind(url, given.viewers[user], [Watch("1", user, FRONTEND, {})]))
    watches = [
        Watch(str(n % WATCHES_PER_DASHBOARD + 1), user, DASHBOARD, {"ids": [user]})
        for n in range(dashboards * WATCHES_PER_DASHBOARD)
        for user in [USERS[n % len(USERS)]]
    ]
    for start in range(0, len(watches), WATCHES_PER_DASHBOARD):
        made.append(
            Subscriber(url, given.dashboard, watches[start : start + WATCHES_PER_DASHBOARD])
        )
    return made


async def enable_streams(endpoint: str) -> None:
    """KEYS_ONLY streams on the streamed tables, where `create_tables` left them off."""
    names = TableNames()
    async with local_client(endpoint) as client:
        for table in STREAMED_TABLES:
            name = getattr(names, table)
            described = await client.describe_table(TableName=name)
            if not described["Table"].get("StreamSpecification", {}).get("StreamEnabled"):
                await client.update_table(
                    TableName=name,
                    StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
                )


async def moto_write_rate(endpoint: str, count: int = 300, concurrency: int = 8) -> float:
    """PutItems a second moto sustains on a streamed table (a probe user nobody watches)."""
    async with local_client(endpoint) as client:
        pending = iter(range(count))

        async def worker() -> None:
            for n in pending:
                item = verification("load-probe", n)
                await client.put_item(TableName=TableNames().pave, Item=to_wire(item))

        started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return count / (time.monotonic() - started)


def verification(user: str, amount: int) -> Item:
    return IncomeVerificationRow(
        user,
        "ACME PAYROLL",
        f"txn-{user}",
        amount,
        "biweekly",
        "ins_109508",
        "approved",
        True,
        datetime.now(UTC),
        ("live phase",),
        "ollie",
    ).to_item()


async def scrape(port: int) -> Samples:
    """A replica's own /metrics (read from the replica itself, not through nginx)."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/metrics") as answer,
    ):
        return samples(await answer.text())


async def run_live_phase(
    topo: Topology,
    given: Tokens,
    *,
    subscriptions: int,
    writes: int,
    rate: float | None,
    restart: bool = True,
    dashboards: int = DASHBOARD_SOCKETS,
) -> LiveResult:
    endpoint = topo.backend.endpoint_url
    measured = await moto_write_rate(endpoint)
    # Half what moto sustains: its streams and the replicas' re-reads share it.
    # A tenth of what moto sustains, at most 10 a second: each write costs moto about ten
    # calls in this phase (the write, or the mutation's lock, write and release; the re-reads
    # on both replicas; the stream's reads; the visibility polls), and moto shares the two
    # cores with both replicas, nginx, Redis and this client.
    rate = rate or min(10.0, measured / 10)
    clients = subscribers(topo.url, given, subscriptions, dashboards)
    result = LiveResult(sum(len(c.watches) for c in clients), len(clients), measured, rate)
    result.rss_before = {r.name: rss_mib(r.pid) for r in topo.replicas}
    stop = asyncio.Event()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        # A fleet's apps come online over time, not in one instant: 10,000 connects at once
        # through nginx overflow the replicas' accept queues, nginx's 1 s connect timeout
        # marks both down, and every upgrade is a 502 until they are back.
        tasks = [
            asyncio.create_task(client.run(session, stop, n / CONNECTS_PER_SECOND))
            for n, client in enumerate(clients)
        ]
        try:
            started = time.monotonic()
            while not all(c.has_initial_states() for c in clients):
                if time.monotonic() - started > READY_SECONDS:
                    raise RuntimeError(
                        f"{sum(not c.has_initial_states() for c in clients)} sockets had no "
                        f"initial state after {READY_SECONDS} s: {errors_of(clients)[:3]}"
                    )
                await asyncio.sleep(0.2)
            result.ready_seconds = time.monotonic() - started
            await asyncio.sleep(IDLE_SECONDS)
            result.rss_idle = {r.name: rss_mib(r.pid) for r in topo.replicas}
            pages = {r.name: await scrape(r.port) for r in topo.replicas}
            for name, page in pages.items():
                result.spread[name] = total(page, "gateway_subscriptions")
            rereads = sum(total(page, REREADS) for page in pages.values())
            by_reason = {
                reason: sum(total(page, REREADS, reason=reason) for page in pages.values())
                for reason in REREAD_REASONS
            }
            await write_load(topo, given, result, writes, session, restart)
            await settle(clients, result)
            pages = {r.name: await scrape(r.port) for r in topo.replicas}
            result.rereads = sum(total(page, REREADS) for page in pages.values()) - rereads
            result.rereads_by_reason = {
                reason: sum(total(page, REREADS, reason=reason) for page in pages.values()) - before
                for reason, before in by_reason.items()
            }
            for metric in ("hits", "misses", "bypasses"):
                name = f"gateway_cache_{metric}_total"
                result.cache[metric] = sum(total(page, name) for page in pages.values())
        finally:
            stop.set()
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)
    judge(clients, result)
    judge_answers(result)
    return result


async def write_load(
    topo: Topology,
    given: Tokens,
    result: LiveResult,
    count: int,
    session: aiohttp.ClientSession,
    restart: bool,
) -> None:
    """Open loop at `result.rate`: even writes straight to DynamoDB, odd ones through the
    mutation (nginx, a writer's token); a rolling restart of replica-1 halfway. A user's
    writes go one after another (each waits for that user's previous one to be answered):
    two in flight at once could commit in either order, and the table would then rightly
    hold the smaller amount."""
    in_turn = {user: asyncio.Lock() for user in USERS}
    async with local_client(topo.backend.endpoint_url) as client:

        async def one(n: int) -> None:
            user = USERS[n % len(USERS)]
            async with in_turn[user]:
                await write_one(n, user)

        async def write_one(n: int, user: str) -> None:
            amount = FIRST_AMOUNT + n
            sent = time.monotonic()
            error = None
            try:
                if n % 2 == 0:
                    item = to_wire(verification(user, amount))
                    await client.put_item(TableName=TableNames().pave, Item=item)
                    via = "direct"
                else:
                    via = "mutation"
                    error = await mutate(topo.url, given.dashboard, user, amount, session)
            except Exception as failure:  # a failed write is reported, never judged as missed
                via, error = "direct" if n % 2 == 0 else "mutation", repr(failure)[:200]
            result.writes.append(Write(user, amount, via, sent, error, time.monotonic()))
            if error is None and via == "direct":
                visible = poll_until_visible(
                    topo.url, given.viewers[user], user, amount, sent, result, session
                )
                pollers.append(asyncio.create_task(visible))

        pollers: list[asyncio.Task[None]] = []

        started = time.monotonic()
        pending: list[asyncio.Task[None]] = []
        restarter: asyncio.Task[float] | None = None
        restarted_at = 0.0
        for n in range(count):
            await asyncio.sleep(max(0.0, started + n / result.rate - time.monotonic()))
            pending.append(asyncio.create_task(one(n)))
            if restart and n == count // 2:
                restarted_at = time.monotonic()
                restarter = asyncio.create_task(asyncio.to_thread(topo.replicas[0].restart))
        await asyncio.gather(*pending)
        await asyncio.gather(*pollers)
        if restarter is not None:
            away = await restarter
            result.restarts.append((topo.replicas[0].name, away))
            result.restart_window = (restarted_at, restarted_at + away)
        result.elapsed = time.monotonic() - started


async def mutate(
    url: str, token: str, user: str, amount: int, session: aiohttp.ClientSession
) -> str | None:
    variables = {
        "input": {
            "userId": user,
            "txnName": "ACME PAYROLL",
            "txnId": f"txn-{user}",
            "amountInCents": amount,
            "payFrequency": "biweekly",
            "institutionId": "ins_109508",
            "verificationStatus": "approved",
            "isValid": True,
            "notes": ["live phase"],
            "verificationSource": "ollie",
        }
    }
    async with session.post(
        url + "/graphql",
        json={"query": SET_VERIFICATION, "variables": variables},
        headers={"Authorization": f"Bearer {token}"},
        timeout=aiohttp.ClientTimeout(total=30),
    ) as answer:
        body = await answer.json(content_type=None)
    if body.get("errors") or (body.get("data") or {}).get("setIncomeVerification") is None:
        return f"HTTP {answer.status}: {str(body)[:200]}"
    return None


async def poll_until_visible(
    url: str,
    token: str,
    user: str,
    amount: int,
    sent: float,
    result: LiveResult,
    session: aiohttp.ClientSession,
) -> None:
    """The user's `viewer` every 250 ms until an answer shows `amount` (or a later one)."""
    deadline = sent + VISIBLE_WITHIN_SECONDS
    while time.monotonic() < deadline:
        asked = time.monotonic()
        try:
            async with session.post(
                url + "/graphql",
                json={"query": VIEWER},
                headers={"Authorization": f"Bearer {token}"},
                timeout=aiohttp.ClientTimeout(total=10),
            ) as answer:
                body = await answer.json(content_type=None)
            viewer = (body.get("data") or {}).get("viewer") or {}
            shown = (viewer.get("incomeVerification") or {}).get("amountInCents")
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            result.failed_queries.append(f"query for {user} failed: {error!r:.200}")
            return
        result.answers.append((user, asked, shown))
        if (shown or 0) >= amount:
            result.visibility.append(time.monotonic() - sent)
            return
        await asyncio.sleep(POLL_SECONDS)
    result.invisible.append(f"{amount} to {user} not shown within {VISIBLE_WITHIN_SECONDS} s")


def judge_answers(result: LiveResult) -> None:
    """An answer is wrong when it shows less than a write to its user that was answered
    more than the cache's lag bound before the query was sent."""
    for user, asked, shown in result.answers:
        settled = [
            w.amount
            for w in result.writes
            if w.user == user and w.error is None and w.answered < asked - CACHE_LAG_SECONDS
        ]
        if settled and (shown or 0) < max(settled):
            result.wrong.append(f"{user} showed {shown} after {max(settled)} was written")


def final_amounts(result: LiveResult) -> dict[str, int]:
    final: dict[str, int] = {}
    for write in result.writes:
        if write.error is None:
            final[write.user] = max(final.get(write.user, 0), write.amount)
    return final


async def settle(clients: list[Client], result: LiveResult) -> None:
    """Wait (bounded) until every subscription shows its user's last write."""
    final = final_amounts(result)
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        if all(
            (client.latest(watch) or 0) >= final.get(watch.user, 0)
            for client in clients
            for watch in client.watches
        ):
            return
        await asyncio.sleep(0.2)


def judge(clients: list[Client], result: LiveResult) -> None:
    """Each answered write against each subscription of its user: the first event showing
    it (or a later write) gives its latency; none is a miss. Counted overall and per
    transport."""
    by_user: dict[str, list[tuple[Client, Watch]]] = {}
    for client in clients:
        figures = result.by_transport.setdefault(client.transport, TransportFigures())
        figures.connections += 1
        figures.subscriptions += len(client.watches)
        figures.reconnects += max(0, client.connects - 1)
        result.reconnects += client.connects - 1
        result.closes.update(client.closes)
        result.refused_upgrades += sum(
            error.startswith(("WSServerHandshakeError", "ValueError: HTTP 503")) and "503" in error
            for error in client.errors
        )
        result.client_errors += client.errors
        for watch in client.watches:
            by_user.setdefault(watch.user, []).append((client, watch))
    for write in result.writes:
        if write.error is not None:
            continue
        for client, watch in by_user.get(write.user, []):
            figures = result.by_transport[client.transport]
            seen = next(
                (at for at, amount in client.events[watch.id] if (amount or 0) >= write.amount),
                None,
            )
            if seen is None:
                figures.missed += 1
                result.missed.append(
                    f"{write.via} write {write.amount} to {write.user}, "
                    f"{client.transport} watch {watch.id}"
                )
            else:
                latency = max(0.0, seen - write.sent)
                result.latencies.append(latency)
                figures.latencies.append(latency)
                window = result.restart_window
                if window is None or not window[0] <= write.sent <= window[1]:
                    result.quiet_latencies.append(latency)
                    figures.quiet_latencies.append(latency)


def errors_of(clients: list[Client]) -> list[str]:
    return [error for client in clients for error in client.errors]


def report(result: LiveResult) -> str:
    written = [w for w in result.writes if w.error is None]
    failed = [w for w in result.writes if w.error is not None]
    per_user = result.subscriptions / len(USERS)
    lines = [
        "### Live: subscriptions while writes land (moto's server with streams, Redis feed)",
        "",
        "Write → event, from the write's send, per transport, through the rolling restart:",
        "",
        *transports.table(result.by_transport),
        "",
        f"- {result.subscriptions} subscriptions on {result.sockets} connections through nginx, "
        f"opened at {CONNECTS_PER_SECOND} a second; all had their initial state "
        f"{result.ready_seconds:.1f} s after the first connected",
        "- open subscriptions per replica (its gauge): "
        + ", ".join(f"{name} {count:.0f}" for name, count in result.spread.items()),
        f"- moto sustains {result.moto_writes_per_second:.0f} PutItems/s on a streamed table "
        f"(8 concurrent); the phase wrote at {result.rate:.1f}/s",
        f"- {len(written)} writes committed ({sum(w.via == 'direct' for w in written)} straight "
        f"to DynamoDB, {sum(w.via == 'mutation' for w in written)} through the mutation) in "
        f"{result.elapsed:.1f} s; {len(failed)} failed",
        f"- write → event, both transports: p50 {result.percentile_ms(0.5):.0f} ms, "
        f"p99 {result.percentile_ms(0.99):.0f} ms over {len(result.latencies)} (write, "
        "subscription) pairs (targets: p50 ≤ 1,000 ms, p99 ≤ 2,000 ms); of the writes sent "
        "outside the restart (SIGTERM to ready again): "
        f"p50 {result.percentile_ms(0.5, quiet=True):.0f} ms, "
        f"p99 {result.percentile_ms(0.99, quiet=True):.0f} ms over "
        f"{len(result.quiet_latencies)} pairs",
        f"- missed: {len(result.missed)} (target 0)",
        f"- re-reads: {result.rereads:.0f} for {len(written)} changes, "
        f"{result.rereads / max(len(written), 1):.2f} a change, with {per_user:.0f} "
        "subscriptions per user in 2 distinct documents on 2 replicas (at most 4 a change); "
        "by reason: "
        + ", ".join(
            f"{reason} {count / max(len(written), 1):.2f}"
            for reason, count in result.rereads_by_reason.items()
        ),
        "- RSS: "
        + ", ".join(
            f"{name} {result.rss_before[name]:.1f} → {result.rss_idle[name]:.1f} MiB"
            for name in result.rss_before
        )
        + f"; {result.kib_per_socket:.1f} KiB per idle connection (socket or SSE stream) with "
        "its subscription(s) (target ≤ 20 KiB)",
        f"- reconnects: {result.reconnects}; connections refused (503): "
        f"{result.refused_upgrades}; close codes seen by the clients: "
        + (", ".join(f"{code}: {n}" for code, n in sorted(result.closes.items())) or "none")
        + " (an SSE stream's: retry, complete, eof or its refusal's status)",
    ]
    visible = sorted(result.visibility)
    p99 = (
        visible[min(len(visible) - 1, int(len(visible) * 0.99))] * 1000 if visible else float("nan")
    )
    p50 = statistics.median(visible) * 1000 if visible else float("nan")
    lines += [
        f"- with the cache on: {len(result.answers)} `viewer` answers polled after the writes, "
        f"{len(result.wrong)} wrong (target 0); write → first answer showing it: p50 {p50:.0f} ms, "
        f"p99 {p99:.0f} ms over {len(visible)} writes (target p99 ≤ 2,000 ms); "
        f"{len(result.invisible)} not shown within {VISIBLE_WITHIN_SECONDS:.0f} s; "
        f"{len(result.failed_queries)} polls failed",
        "- cache (both replicas, whole phase): "
        + ", ".join(f"{name} {count:.0f}" for name, count in result.cache.items()),
    ]
    for name, away in result.restarts:
        lines.append(f"- rolling restart: {name} SIGTERMed and ready again in {away:.1f} s")
    lines += [f"  - wrong: {wrong}" for wrong in result.wrong[:5]]
    lines += [f"  - not shown: {miss}" for miss in result.invisible[:5]]
    lines += [f"  - poll: {failure}" for failure in result.failed_queries[:5]]
    lines += [f"  - missed: {miss}" for miss in result.missed[:5]]
    lines += [f"  - failed write: {w.via} {w.amount}: {w.error}" for w in failed[:5]]
    lines += [f"  - client: {error}" for error in result.client_errors[:5]]
    return "\n".join(lines)


def live_problems(result: LiveResult) -> list[str]:
    problems = []
    if result.missed:
        problems.append(f"live: {len(result.missed)} missed")
    if result.wrong or result.invisible or result.failed_queries:
        problems.append(
            f"live: {len(result.wrong)} wrong answers, {len(result.invisible)} writes never "
            f"shown, {len(result.failed_queries)} polls failed"
        )
    if any(w.error for w in result.writes):
        problems.append(f"live: {sum(1 for w in result.writes if w.error)} writes failed")
    problems += transports.problems(result.by_transport)
    return problems
