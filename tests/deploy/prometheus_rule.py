"""deploy/kubernetes/base/prometheusrule.yaml is deploy/prometheus's rules file wrapped in
prometheus-operator's PrometheusRule; `test_prometheus_rules.py` keeps the two equal.

    .venv/bin/python -m tests.deploy.prometheus_rule > deploy/kubernetes/base/prometheusrule.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "insight-gateway.rules.yml"
PROMETHEUS_RULE = ROOT / "deploy" / "kubernetes" / "base" / "prometheusrule.yaml"

HEADER = """\
# Generated from deploy/prometheus/insight-gateway.rules.yml (a test keeps them equal):
#   .venv/bin/python -m tests.deploy.prometheus_rule > deploy/kubernetes/base/prometheusrule.yaml
# prometheus-operator loads it when its ruleSelector matches these labels (docs/kubernetes.md).
"""


def prometheus_rule(rules: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "name": "insight-gateway",
            "labels": {"app.kubernetes.io/name": "insight-gateway"},
        },
        "spec": {"groups": rules["groups"]},
    }


class _Dumper(yaml.SafeDumper):
    """Multi-line expressions as literal blocks, as the rules file writes them."""


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _text)


def render() -> str:
    rules = yaml.safe_load(RULES.read_text())
    body = yaml.dump(prometheus_rule(rules), Dumper=_Dumper, sort_keys=False, width=100)
    return HEADER + body


if __name__ == "__main__":
    sys.stdout.write(render())
