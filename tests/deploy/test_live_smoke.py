"""The live phase's smoke run: deploy/nginx.conf in front of two replicas over moto's
server (with DynamoDB Streams), subscriptions on, the change feed through a real
redis-server; subscriptions open on both replicas while writes land straight to DynamoDB
and through the mutation, and replica-1 is restarted mid-run; a third of the frontends on
GraphQL over SSE streams. Every write is seen by every subscription of its user (0 missed),
sockets cut by the restart come back, streams ended with `retry:` resume, the re-reads
stay within one per change per distinct document and replica, and with the coherent cache
on every write shows in a query answer and no answer is stale past the feed's lag bound.
(`make load` is the full run, with its figures.)"""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from pathlib import Path

import pytest

from bench.load.live import (
    SSE_EVERY,
    WATCHES_PER_DASHBOARD,
    LiveResult,
    enable_streams,
    run_live_phase,
)
from bench.load.moto_process import MotoServer
from bench.load.topology import topology
from bench.load.workload import USERS, seed, tokens

pytestmark = pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="Debian's nginx is not installed (apt-get install nginx; make test does)",
)

SUBSCRIPTIONS = 40
DASHBOARDS = 2
WRITES = 40
RATE = 4.0


def test_every_write_reaches_every_subscriber_through_a_rolling_restart(tmp_path: Path) -> None:
    def prepare(endpoint: str) -> None:
        asyncio.run(seed(endpoint))
        asyncio.run(enable_streams(endpoint))

    with topology(tmp_path, prepare, backend=MotoServer, live=True) as topo:
        result: LiveResult = asyncio.run(
            run_live_phase(
                topo,
                tokens(),
                subscriptions=SUBSCRIPTIONS,
                writes=WRITES,
                rate=RATE,
                dashboards=DASHBOARDS,
            )
        )

    assert [name for name, _ in result.restarts] == ["replica-1"]
    assert [w for w in result.writes if w.error is not None] == []
    assert len(result.writes) == WRITES
    assert result.missed == []
    # Every (write, subscription of its user) pair was seen: 40 writes over users 0-39,
    # each user watched by one frontend, users 0-19 by a dashboard subscription too.
    watched = Counter(USERS[n % len(USERS)] for n in range(SUBSCRIPTIONS))
    watched.update(USERS[n % len(USERS)] for n in range(DASHBOARDS * WATCHES_PER_DASHBOARD))
    pairs = sum(watched[w.user] for w in result.writes)
    assert len(result.latencies) == pairs
    # A third of the frontends held an SSE stream: none missed a write, and the streams on
    # the restarted replica ended with `retry:` (and came back with Last-Event-ID).
    sse = result.by_transport["sse"]
    assert sse.subscriptions == len(range(SSE_EVERY - 1, SUBSCRIPTIONS, SSE_EVERY))
    assert sse.missed == 0
    assert len(sse.latencies) == sum(
        1
        for w in result.writes
        for n in range(SSE_EVERY - 1, SUBSCRIPTIONS, SSE_EVERY)
        if USERS[n % len(USERS)] == w.user
    )
    assert result.closes["retry"] > 0, result.closes
    # Both replicas served subscriptions, and the sockets on the restarted one came back.
    assert all(count > 0 for count in result.spread.values()), result.spread
    assert result.reconnects > 0
    # With the cache on, every write straight to DynamoDB (every other one) showed in a
    # query answer, and no answer trailed a write answered more than the feed's lag bound
    # before it was asked.
    assert result.wrong == []
    assert result.invisible == []
    assert result.failed_queries == []
    assert len(result.visibility) == sum(w.via == "direct" for w in result.writes) > 0
    # At most one re-read per change per distinct document (2 here) on each replica (2).
    assert 0 < result.rereads <= 4 * WRITES
