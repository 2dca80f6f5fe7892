"""The rules and the dashboard against the real thing: Debian's prometheus, on 127.0.0.1 with
a temporary directory, scrapes two gateways every second (one enforcing the trusted
documents of deploy/kubernetes with a small budget, one with the defaults, both behind the
suite's fault proxy in front of moto) and a replica that is down. After some traffic with
errors of every kind, every recording rule, every alert expression and every dashboard
query (Grafana's variables substituted) is run through Prometheus' HTTP API: each must be
valid, and a panel that shows nothing from a serving gateway must say why in its description.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.cli.demo import ADA, BOB, seed_demo
from gateway.cli.examples import FRONTEND_QUERY
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.principal import DASHBOARD, WRITER
from support.faults import Throttle, Unprocess, fault_proxy
from support.fixed_clock import FixedClock
from support.processes import free_port
from tests.deploy.dashboard import load, queries
from tests.deploy.prometheus_rule import RULES
from tests.deploy.tools import require
from tests.live_server import serve_in_thread
from tests.prometheus_server import PrometheusServer

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "deploy" / "kubernetes" / "base" / "trusted-documents.json"
JOB = "insight-gateway"
SECRET = "live-prometheus-secret-0123456789abcdef"
#: Rounds of traffic, a second apart, so that every rate() sees several scrapes.
ROUNDS = 6
#: Metrics of 0.3.0's live data and cache, written by other changes: the rules
#: and panels for them may find no series here (and say so), but must be valid.
UPCOMING = {
    "gateway_change_feed_lag_seconds",
    "gateway_change_feed_connected",
    "gateway_stream_leases_held",
    "gateway_stream_lease_takeovers_total",
    "gateway_stream_records_total",
    "gateway_subscription_connections",
    "gateway_subscriptions",
    "gateway_subscription_events_total",
    "gateway_subscription_rereads_total",
    "gateway_cache_hits_total",
    "gateway_cache_misses_total",
    "gateway_cache_bypasses_total",
    "gateway_cache_evictions_total",
    "gateway_cache_bytes",
}
#: Panels the traffic below must fill: they prove the queries meet the gateway's labels.
MUST_SHOW = [
    "Replicas up",
    "GraphQL requests and errors",
    "Operations by type and trusted name",
    "Operation latency by type and trusted name (p50, p99)",
    "Operations by execution path",
    "Errors by code",
    "Errors per GraphQL request, by code",
    "DynamoDB calls by operation and outcome",
    "DynamoDB calls and round trips per operation",
    "Retries (throttling, 5xx, timeouts) by operation",
    "Unprocessed keys by operation",
    "Budget refusals",
    "Budget storage errors",
    "Untrusted operations",
    "Resident memory by replica",
    "CPU by replica",
    "Most used fields",
]
#: The listed Frontend operation, as a client built with the manifest sends it.
LISTED = next(
    op["body"] for op in json.loads(MANIFEST.read_text())["operations"] if op["name"] == "Frontend"
)
UNLISTED_QUERY = "query Mine { viewer { id alert { alertSent } } }"
OTHER_USER = f'query Other {{ user(id: "{BOB}") {{ id lowBalanceAlert }} }}'
BAD_FIELD = "query Bad { viewer { id noSuchField } }"
WIDE = (
    f'query Wide {{ users(ids: ["{ADA}", "{BOB}"]) '
    "{ id lowBalanceAlert alert { alertSent } } }"
)
MUTATION = (
    "mutation Page { recordLastPage(input: "
    f'{{userId: "{ADA}", paveRequestId: "live-1", page: 2}}) {{ page }} }}'
)


@asynccontextmanager
async def client(base: str, token: str | None) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
        yield http


async def drive(enforcing: str, default: str, clock: FixedClock, proxy: Any) -> None:
    """A round of traffic: answers and errors of every kind the rules and panels count."""
    user = mint_token(SECRET, ADA, [], timedelta(hours=1), clock)
    dashboard = mint_token(SECRET, "dash-1", [DASHBOARD], timedelta(hours=1), clock)
    writer = mint_token(SECRET, "writer-1", [WRITER], timedelta(hours=1), clock)
    async with (
        client(enforcing, user) as enforcing_user,
        client(default, user) as default_user,
        client(default, dashboard) as default_dashboard,
        client(default, writer) as default_writer,
        client(default, None) as anonymous,
    ):
        # Listed, then over the small budget: RATE_LIMITED (429). Unlisted: refused.
        for _ in range(3):
            await enforcing_user.post("/graphql", json={"query": LISTED})
        await enforcing_user.post("/graphql", json={"query": UNLISTED_QUERY})
        # Served; FORBIDDEN; GRAPHQL_VALIDATION_FAILED; UNAUTHENTICATED (401); a mutation.
        await default_user.post("/graphql", json={"query": FRONTEND_QUERY})
        await default_user.post("/graphql", json={"query": OTHER_USER})
        await default_user.post("/graphql", json={"query": BAD_FIELD})
        await anonymous.post("/graphql", json={"query": FRONTEND_QUERY})
        await default_writer.post("/graphql", json={"query": MUTATION})
        # DynamoDB throttling: retried, left unprocessed, and past the retries.
        proxy.inject("BatchGetItem", Throttle(), times=1)
        await default_dashboard.post("/graphql", json={"query": WIDE})
        proxy.inject("BatchGetItem", Unprocess(keep=0), times=1)
        await default_dashboard.post("/graphql", json={"query": WIDE})
        proxy.inject("BatchGetItem", Throttle(), times=2)
        await default_dashboard.post("/graphql", json={"query": WIDE})
        proxy.reset()


async def query(prom: httpx.AsyncClient, expr: str) -> list[dict[str, Any]]:
    answer = await prom.get("/api/v1/query", params={"query": expr})
    body = answer.json()
    assert answer.status_code == 200, f"{expr}\n{body}"
    assert body["status"] == "success", f"{expr}\n{body}"
    result: list[dict[str, Any]] = body["data"]["result"]
    return result


def metric_names(expr: str) -> set[str]:
    """The gateway's and the process's metric names an expression reads."""
    # Not the parts of a recording rule's name (job:gateway_..:rate5m).
    return set(re.findall(r"(?<![:\w])((?:gateway|process)_[a-z_]+)(?![:\w])", expr))


def exported(text: str) -> set[str]:
    """Every series name /metrics can carry, from its TYPE lines (a family with no sample
    yet still has one)."""
    names: set[str] = set()
    suffixes = {
        "counter": ["_total"],
        "gauge": [""],
        "histogram": ["_bucket", "_sum", "_count"],
        "summary": ["_sum", "_count", ""],
    }
    for family, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, flags=re.MULTILINE):
        base = family.removesuffix("_total") if kind == "counter" else family
        names.update(base + suffix for suffix in suffixes.get(kind, [""]))
    return names


@pytest.fixture
def seeded(settings: Settings) -> Settings:
    return dataclasses.replace(settings, auth_hs256_secret=SECRET, dynamodb_max_attempts=2)


async def test_every_rule_alert_and_panel_evaluates_on_prometheus_scraping_the_gateway(
    seeded: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    require("prometheus", "Debian's prometheus package; make test installs it")
    await seed_demo(dynamo, clock.now(), seeded)
    dashboard = load()
    rule_groups = yaml.safe_load(RULES.read_text())["groups"]
    rules = [rule for group in rule_groups for rule in group["rules"]]
    recorded = {rule["record"] for rule in rules if "record" in rule}

    assert seeded.dynamodb_endpoint_url is not None
    async with fault_proxy(seeded.dynamodb_endpoint_url) as proxy:
        behind_proxy = dataclasses.replace(seeded, dynamodb_endpoint_url=proxy.endpoint_url)
        enforcing = dataclasses.replace(
            behind_proxy,
            trusted_documents="enforce",
            trusted_documents_file=str(MANIFEST),
            rate_limit_user="40/minute",
        )
        with (
            serve_in_thread(create_app(enforcing, clock=clock)) as enforcing_url,
            serve_in_thread(create_app(behind_proxy, clock=clock)) as default_url,
        ):
            targets = [url.removeprefix("http://") for url in (enforcing_url, default_url)]
            down = f"127.0.0.1:{free_port()}"
            with PrometheusServer([*targets, down], job=JOB, rules=[RULES]) as prometheus:
                async with httpx.AsyncClient(base_url=prometheus.url, timeout=10) as prom:
                    for _ in range(ROUNDS):
                        await drive(enforcing_url, default_url, clock, proxy)
                        await asyncio.sleep(1)
                    # Two more scrapes after the last round, and the rules evaluated.
                    await asyncio.sleep(2.5)
                    async with httpx.AsyncClient(base_url=enforcing_url) as gateway:
                        metrics = (await gateway.get("/metrics")).text
                    await check(prom, dashboard, rules, recorded, metrics, down)


async def check(
    prom: httpx.AsyncClient,
    dashboard: dict[str, Any],
    rules: list[dict[str, Any]],
    recorded: set[str],
    metrics: str,
    down: str,
) -> None:
    # Prometheus loaded every rule and evaluates each without an error.
    loaded = (await prom.get("/api/v1/rules")).json()["data"]["groups"]
    health = {
        rule["name"]: (rule["health"], rule.get("lastError", ""))
        for group in loaded
        for rule in group["rules"]
    }
    assert len(health) == len(rules)
    assert {name: state for name, state in health.items() if state[0] != "ok"} == {}

    # Every recording rule's and alert's expression runs.
    for rule in rules:
        await query(prom, rule["expr"])
    # The replica alert sees the down target, and only it; the job is up.
    by_name = {rule.get("alert"): rule for rule in rules}
    replica_down = await query(prom, by_name["InsightGatewayReplicaDown"]["expr"])
    # (A scrape of a busy gateway may time out now and then on a loaded machine; the target
    # with nothing behind it never answers.)
    assert down in [series["metric"]["instance"] for series in replica_down]
    assert await query(prom, by_name["InsightGatewayDown"]["expr"]) == []
    # The error ratio by code the alerts read is recorded from real traffic.
    ratios = await query(prom, "job_code:gateway_graphql_errors_per_request:ratio_rate5m")
    codes = {series["metric"]["code"] for series in ratios}
    assert {
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "GRAPHQL_VALIDATION_FAILED",
        "PERSISTED_QUERY_NOT_IN_LIST",
        "RATE_LIMITED",
        "DYNAMODB_UNAVAILABLE",
    } <= codes, codes
    refusals = await query(prom, "job:gateway_graphql_budget_refusals:ratio_rate5m")
    assert [series["metric"]["job"] for series in refusals] == [JOB]
    assert float(refusals[0]["value"][1]) > 0

    # Every metric the rules and panels read is the gateway's, or one of 0.3.0's to come.
    values = {
        "datasource": "prometheus",
        "job": JOB,
        "instance": ".*",
        "__rate_interval": "15s",
        "__interval": "1s",
        "__range": "1m",
    }
    panel_queries = queries(dashboard, values)
    read = set().union(*(metric_names(rule["expr"]) for rule in rules))
    read |= set().union(*(metric_names(q.expr) for q in panel_queries))
    known = exported(metrics)
    assert "process_resident_memory_bytes" in known
    assert sorted(read - known - UPCOMING - recorded) == []
    assert sorted(UPCOMING - read) == [], "every metric to come has a rule or a panel"

    # Every panel query runs; a panel with nothing to show says why.
    empty: dict[str, list[str]] = {}
    shown: set[str] = set()
    for panel_query in panel_queries:
        if await query(prom, panel_query.expr):
            shown.add(panel_query.panel["title"])
        else:
            empty.setdefault(panel_query.panel["title"], []).append(panel_query.ref_id)
    descriptions = {q.panel["title"]: q.panel["description"] for q in panel_queries}
    silent = sorted(title for title in set(empty) - shown if "No data" not in descriptions[title])
    assert silent == [], "panels empty on a serving gateway whose description says not why"
    assert sorted(set(MUST_SHOW) - shown) == []
