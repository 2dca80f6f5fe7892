"""deploy/grafana's dashboard as the tests read it: its panels and their queries, with
Grafana's variables substituted as Grafana would for one job and every replica."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "insight-gateway.json"
#: Grafana's own variables the queries may use, with what the tests put in their place.
BUILTINS = {"__rate_interval", "__interval", "__range"}
VARIABLE = re.compile(r"\$(?:\{(\w+)(?::\w+)?\}|(\w+))")


@dataclass(frozen=True)
class Query:
    panel: dict[str, Any]
    ref_id: str
    expr: str

    @property
    def title(self) -> str:
        return f"{self.panel['title']} [{self.ref_id}]"


def load() -> dict[str, Any]:
    dashboard: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return dashboard


def panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    """Every panel but rows (a collapsed row keeps its panels inside it)."""
    found = []
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            found.extend(panel.get("panels", []))
        else:
            found.append(panel)
    return found


def variables_in(text: str) -> set[str]:
    return {braced or bare for braced, bare in VARIABLE.findall(text)}


def substitute(expr: str, values: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        return values[match.group(1) or match.group(2)]

    return VARIABLE.sub(value, expr)


def queries(dashboard: dict[str, Any], values: dict[str, str]) -> list[Query]:
    """Every target of every panel, its variables replaced by `values` (which must name
    them all: the dashboard's own and Grafana's builtins)."""
    return [
        Query(panel, target["refId"], substitute(target["expr"], values))
        for panel in panels(dashboard)
        for target in panel["targets"]
    ]
