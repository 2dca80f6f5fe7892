"""The load test's smoke run: deploy/nginx.conf in front of two gateway replicas over
dynalite, a few hundred open-loop requests of the full mix, and one rolling restart of a
replica mid-run: every answer right, none failed, no write lost, no error at all.
(`make load` is the full run, with its figures; this only proves the topology works.)"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from bench.load.driver import PhaseResult, fault_free_answers, run_phase
from bench.load.topology import render_nginx, topology
from bench.load.workload import CLASSES, MUTATION, jobs, lost_writes, seed, tokens

pytestmark = pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="Debian's nginx is not installed (apt-get install nginx; make test does)",
)

REQUESTS = 240
RATE = 8.0


def test_the_shipped_config_is_rendered_with_only_its_ports_changed() -> None:
    shipped = (Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf").read_text()
    rendered = render_nginx(18080, [18001, 18002])
    assert "listen 127.0.0.1:18080 backlog=4096;" in rendered
    assert "server 127.0.0.1:18001 max_fails=2 fail_timeout=1s;" in rendered
    assert "server 127.0.0.1:18002 max_fails=2 fail_timeout=1s;" in rendered
    # The sockets' group: the same replicas, never marked failed.
    assert "server 127.0.0.1:18001 max_fails=0;" in rendered
    assert "server 127.0.0.1:18002 max_fails=0;" in rendered
    for port in ("18080", "18001", "18002"):
        rendered = rendered.replace(port, "")
    for port in ("8080", "8001", "8002"):
        shipped = shipped.replace(port, "")
    assert rendered == shipped
    assert "non_idempotent" in shipped


def test_a_rolling_restart_under_load_loses_nothing(tmp_path: Path) -> None:
    def prepare(endpoint: str) -> None:
        asyncio.run(seed(endpoint))

    with topology(tmp_path, prepare) as topo:
        given = tokens()

        async def load() -> tuple[PhaseResult, list[str]]:
            expected = await fault_free_answers(topo.url, given)
            result = await run_phase(
                "smoke",
                topo,
                list(jobs(REQUESTS, "smoke", 7, given)),
                expected,
                rate=RATE,
                time_limit=REQUESTS / RATE * 3,
                restart_at=0.5,
            )
            return result, await lost_writes(topo.backend.endpoint_url, result.written)

        result, lost = asyncio.run(load())
        restarted = topo.replicas[0].restarts

    assert restarted == 1
    assert [name for name, _ in result.restarts] == ["replica-1"]
    assert result.answered == REQUESTS
    for kind in CLASSES:
        stats = result.stats[kind]
        assert stats.latencies, f"no {kind} request in the mix"
        assert stats.wrong == []
        assert stats.failed == []
        assert not stats.codes
    assert len(result.written) == len(result.stats[MUTATION].latencies)
    assert lost == []
