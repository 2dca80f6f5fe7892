"""The writes phase's smoke run (bench/load/writes.py): deploy/nginx.conf in front of two
replicas over moto's server, a few keyed mutations of every kind, retried with their keys,
and both replicas restarted in turn mid-run: 0 duplicated, 0 lost, every answer its first.
(`python -m bench.load writes` is the full phase, with its figures.)"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from bench.load.moto_process import MotoServer
from bench.load.topology import topology
from bench.load.write_jobs import KINDS
from bench.load.writes import (
    RESEND_EVERY,
    WRITES_SETTINGS,
    run_writes_phase,
    seed_writes,
    write_jobs,
)

pytestmark = pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="Debian's nginx is not installed (apt-get install nginx; make test does)",
)

WRITES = 5 * len(KINDS)
RATE = 4.0


def test_keyed_writes_through_a_rolling_restart_have_one_effect_each(tmp_path: Path) -> None:
    jobs = write_jobs(WRITES)
    with topology(
        tmp_path,
        lambda endpoint: asyncio.run(seed_writes(endpoint, jobs)),
        backend=lambda: MotoServer(tmp_path / "moto.log", serial=True),
        settings=WRITES_SETTINGS,
    ) as topo:
        result = asyncio.run(run_writes_phase(topo, jobs, RATE, tmp_path / "moto.log"))
        restarted = [replica.restarts for replica in topo.replicas]

    assert restarted == [1, 1]
    assert (result.duplicated, result.lost, result.differing) == ([], [], [])
    assert result.unanswered == []
    assert all(outcome.answers for outcome in result.outcomes)
    # Every write's answer was checked against its items, and the resends were replays.
    assert result.stamps_checked >= WRITES
    assert result.replays >= len(range(0, WRITES, RESEND_EVERY))
    assert result.moto_requests >= 2 * WRITES
