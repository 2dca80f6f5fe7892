"""deploy/grafana/insight-gateway.json imports as it is (no inputs to map, a datasource
variable, no id), its layout holds, every query uses only variables Grafana defines and is
valid PromQL (promtool), and it shows what the on-call engineer needs first.
(test_live_prometheus.py runs every query on a real Prometheus.)"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.deploy.dashboard import BUILTINS, DASHBOARD, load, panels, queries, variables_in
from tests.deploy.tools import require

#: The values the static checks substitute (the live test uses its own job's).
VALUES = {
    "datasource": "prometheus",
    "job": "insight-gateway",
    "instance": ".*",
    "__rate_interval": "1m",
    "__interval": "15s",
    "__range": "1h",
}


def test_importable_as_it_is() -> None:
    dashboard = load()
    assert dashboard["id"] is None
    assert dashboard["uid"] == "insight-gateway"
    assert dashboard["title"]
    assert dashboard["schemaVersion"] >= 36
    # No ${DS_...} inputs to map on import: the data source is a variable of the dashboard.
    assert "__inputs" not in dashboard
    assert "${DS_" not in DASHBOARD.read_text()
    [datasource] = [v for v in dashboard["templating"]["list"] if v["type"] == "datasource"]
    assert datasource["query"] == "prometheus"
    for panel in panels(dashboard):
        assert panel["datasource"] == {"type": "prometheus", "uid": f"${{{datasource['name']}}}"}
        for target in panel["targets"]:
            assert target["datasource"] == panel["datasource"]


def test_every_variable_a_query_uses_is_defined() -> None:
    dashboard = load()
    defined = {variable["name"] for variable in dashboard["templating"]["list"]}
    used: set[str] = set()
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            used |= variables_in(variable["definition"])
    for panel in panels(dashboard):
        for target in panel["targets"]:
            used |= variables_in(target["expr"])
    assert used - BUILTINS <= defined
    assert {"job", "instance"} <= used
    assert set(VALUES) >= defined | BUILTINS


def test_the_layout_holds() -> None:
    dashboard = load()
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    cells: set[tuple[int, int]] = set()
    for panel in dashboard["panels"]:
        box = panel["gridPos"]
        assert box["x"] >= 0, panel["title"]
        assert box["x"] + box["w"] <= 24, panel["title"]
        covered = {
            (x, y)
            for x in range(box["x"], box["x"] + box["w"])
            for y in range(box["y"], box["y"] + box["h"])
        }
        assert not covered & cells, f"{panel['title']} overlaps another panel"
        cells |= covered
    for panel in panels(dashboard):
        assert panel["title"]
        assert panel["description"]
        refs = [target["refId"] for target in panel["targets"]]
        assert refs
        assert len(refs) == len(set(refs))


def test_every_query_is_valid_promql(tmp_path: Path) -> None:
    """promtool checks each query as a recording rule's expression (it parses it, offline)."""
    promtool = require("promtool", "Debian's prometheus package; make test installs it")
    found = queries(load(), VALUES)
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"dashboard:query_{index}", "expr": query.expr}
                    for index, query in enumerate(found)
                ],
            }
        ]
    }
    (tmp_path / "dashboard.yml").write_text(yaml.safe_dump(rules))
    done = subprocess.run(
        [promtool, "check", "rules", "dashboard.yml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(found)} rules found" in done.stdout


def exprs_of(dashboard: dict[str, Any], title_words: str) -> str:
    """The queries of the panels whose title has every one of the words."""
    words = title_words.lower().split()
    chosen = [
        panel
        for panel in panels(dashboard)
        if all(word in panel["title"].lower() for word in words)
    ]
    assert chosen, f"no panel titled with {title_words!r}"
    return " ".join(target["expr"] for panel in chosen for target in panel["targets"])


def test_it_shows_what_the_on_call_engineer_opens_it_for() -> None:
    dashboard = load()
    wanted = {
        "operations by type": "gateway_graphql_operations_total",
        "latency by type": "gateway_graphql_operation_seconds_bucket",
        "execution path": "gateway_operations_executed_total",
        "errors by code": "gateway_graphql_errors_total",
        "dynamodb calls": "gateway_dynamodb_calls_total",
        "read capacity": "gateway_graphql_operation_read_capacity_units_sum",
        "round trips": "gateway_graphql_operation_dynamodb_round_trips_sum",
        "retries": "gateway_dynamodb_retries_total",
        "unprocessed keys": "gateway_dynamodb_unprocessed_keys_total",
        "budget refusals": 'code="RATE_LIMITED"',
        "budget storage": "gateway_rate_limit_storage_errors_total",
        "untrusted operations": "gateway_untrusted_operations_total",
        "memory": "process_resident_memory_bytes",
        "cpu": "process_cpu_seconds_total",
        "subscription": "gateway_subscriptions",
        "feed lag": "gateway_change_feed_lag_seconds",
        "cache hit ratio": "gateway_cache_hits_total",
        "replicas up": "up{",
        "firing alerts": "ALERTS{",
    }
    for title, metric in wanted.items():
        assert metric in exprs_of(dashboard, title), title
