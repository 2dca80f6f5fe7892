"""deploy/prometheus: promtool checks the rules and runs their unit tests, every alert has a
unit test where it fires and one where it does not, a runbook section, and the
PrometheusRule of deploy/kubernetes is the same rules file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.prometheus_rule import PROMETHEUS_RULE, RULES, prometheus_rule, render
from tests.deploy.tools import require

ROOT = Path(__file__).resolve().parents[2]
UNIT_TESTS = RULES.parent / "insight-gateway.tests.yml"
RUNBOOKS = ROOT / "docs" / "runbooks.md"


def rules() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(RULES.read_text())
    return loaded


def alerts() -> list[dict[str, Any]]:
    return [rule for group in rules()["groups"] for rule in group["rules"] if "alert" in rule]


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    path = require("promtool", "Debian's prometheus package; make test installs it")
    return subprocess.run(
        [path, *args], cwd=RULES.parent, capture_output=True, text=True, timeout=120
    )


def test_promtool_checks_the_rules() -> None:
    done = promtool("check", "rules", RULES.name)
    assert done.returncode == 0, done.stdout + done.stderr
    count = sum(len(group["rules"]) for group in rules()["groups"])
    assert f"SUCCESS: {count} rules found" in done.stdout


def test_promtool_unit_tests_pass() -> None:
    done = promtool("test", "rules", UNIT_TESTS.name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_promtool_unit_tests_can_fail(tmp_path: Path) -> None:
    """The same tests against rules whose internal-errors threshold is 10 times lower: the
    near miss now fires, and promtool says so."""
    (tmp_path / RULES.name).write_text(
        RULES.read_text().replace(
            '{code="INTERNAL_SERVER_ERROR"} > 0.01', '{code="INTERNAL_SERVER_ERROR"} > 0.001'
        )
    )
    (tmp_path / UNIT_TESTS.name).write_text(UNIT_TESTS.read_text())
    path = require("promtool", "Debian's prometheus package; make test installs it")
    done = subprocess.run(
        [path, "test", "rules", UNIT_TESTS.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "InsightGatewayInternalErrors stays quiet" in done.stdout + done.stderr


def test_every_alert_has_a_test_that_fires_it_and_one_that_does_not() -> None:
    fired: set[str] = set()
    quiet: set[str] = set()
    for case in yaml.safe_load(UNIT_TESTS.read_text())["tests"]:
        for check in case.get("alert_rule_test", []):
            (fired if check["exp_alerts"] else quiet).add(check["alertname"])
    names = {alert["alert"] for alert in alerts()}
    assert len(names) == len(alerts()), "two alerts share a name"
    assert sorted(names - fired) == [], "alerts no unit test fires"
    assert sorted(names - quiet) == [], "alerts no unit test keeps quiet"
    assert fired | quiet <= names


def test_the_issues_alerts_are_all_there() -> None:
    expressions = " ".join(alert["expr"] for alert in alerts())
    for wanted in (
        'code="INTERNAL_SERVER_ERROR"',
        'code="DYNAMODB_UNAVAILABLE"',
        "gateway_dynamodb_retries",
        "p99",
        "gateway_graphql_budget_refusals",
        "gateway_rate_limit_storage_errors",
        'outcome="refused"',
        'up{job="insight-gateway"}',
        "gateway_change_feed_lag_seconds",
        "gateway_stream_lease_takeovers_total",
        "gateway_cache_bypasses",
    ):
        assert wanted in expressions


def anchors(markdown: str) -> set[str]:
    """The anchors of a page's headings, as mkdocs and GitHub make them."""
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", markdown, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).strip().replace(" ", "-")
        found.add(slug)
    return found


@pytest.mark.parametrize("alert", alerts(), ids=lambda alert: alert["alert"])
def test_every_alert_says_what_it_is_and_where_its_runbook_is(alert: dict[str, Any]) -> None:
    assert alert["labels"]["severity"] in {"critical", "warning"}
    annotations = alert["annotations"]
    assert set(annotations) == {"summary", "description", "runbook_url"}
    page, _, anchor = annotations["runbook_url"].partition("#")
    assert page == "docs/runbooks.md"
    assert anchor == alert["alert"].lower()
    assert anchor in anchors((ROOT / page).read_text())


def test_every_runbook_section_belongs_to_an_alert() -> None:
    text = RUNBOOKS.read_text()
    sections = set(re.findall(r"^## +(\S+)$", text, flags=re.MULTILINE))
    assert sections == {alert["alert"] for alert in alerts()}
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        assert "**Look at.**" in section
        assert "**Do.**" in section


def test_the_prometheus_rule_is_the_rules_file() -> None:
    shipped = yaml.safe_load(PROMETHEUS_RULE.read_text())
    assert shipped == prometheus_rule(rules())
    assert PROMETHEUS_RULE.read_text() == render(), (
        "regenerate it: .venv/bin/python -m tests.deploy.prometheus_rule "
        "> deploy/kubernetes/base/prometheusrule.yaml"
    )


def test_the_walk_through_lists_every_alert() -> None:
    text = (ROOT / "docs" / "kubernetes.md").read_text()
    listed = re.findall(r"^\| (InsightGateway\w+) \| (\w+) \|", text, flags=re.MULTILINE)
    assert listed == [(alert["alert"], alert["labels"]["severity"]) for alert in alerts()]
