"""deploy/kubernetes as the tests read it: each tree rendered once with `kubectl kustomize`,
its objects by kind and name, the gateway's pod and container, and the container's
environment as the pods get it (ConfigMaps, then the user's Secret)."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.deploy.tools import require

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
BASE = KUBERNETES / "base"
OVERLAYS = sorted(path.parent for path in (KUBERNETES / "overlays").glob("*/kustomization.yaml"))
#: `kubectl kustomize deploy/kubernetes` (the base), the base, every overlay.
TREES = [KUBERNETES, BASE, *OVERLAYS]
#: What the user's Secret `insight-gateway` holds (docs/kubernetes.md creates it).
SECRET_EXAMPLE = {
    "INSIGHT_RATE_LIMIT_STORAGE_URI": "rediss://insight-redis.example.internal:6379/0",
    "INSIGHT_CHANGE_FEED_URI": "rediss://insight-redis.example.internal:6379/1",
}


def tree_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@functools.cache
def render(tree: Path) -> tuple[dict[str, Any], ...]:
    kubectl = require("kubectl", "kubectl brings kustomize; the machine's image has it")
    done = subprocess.run(
        [kubectl, "kustomize", str(tree)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def one(tree: Path, kind: str) -> dict[str, Any]:
    found = [doc for doc in render(tree) if doc["kind"] == kind]
    assert len(found) == 1, f"{tree_id(tree)}: {len(found)} {kind}"
    return found[0]


def by_name(tree: Path, kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in render(tree) if doc["kind"] == kind}


def pod_spec(tree: Path) -> dict[str, Any]:
    spec: dict[str, Any] = one(tree, "Deployment")["spec"]["template"]["spec"]
    return spec


def container(tree: Path) -> dict[str, Any]:
    containers = pod_spec(tree)["containers"]
    assert len(containers) == 1
    found: dict[str, Any] = containers[0]
    return found


def pod_labels(tree: Path) -> dict[str, str]:
    labels: dict[str, str] = one(tree, "Deployment")["spec"]["template"]["metadata"]["labels"]
    return labels


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    assert set(selector) <= {"matchLabels"}, selector
    return bool(selector["matchLabels"]) and selector["matchLabels"].items() <= labels.items()


def settings_environment(tree: Path) -> dict[str, str]:
    """The container's environment: its ConfigMaps' data, then the Secret's (envFrom order)."""
    config_maps = by_name(tree, "ConfigMap")
    environment: dict[str, str] = {}
    for source in container(tree)["envFrom"]:
        if "configMapRef" in source:
            environment |= config_maps[source["configMapRef"]["name"]]["data"]
        else:
            assert source["secretRef"]["name"] == "insight-gateway"
            environment |= SECRET_EXAMPLE
    return environment


def mebibytes(quantity: str) -> float:
    match = re.fullmatch(r"(\d+)(Mi|Gi)", quantity)
    assert match is not None, f"write memory in Mi or Gi: {quantity}"
    return int(match.group(1)) * (1024 if match.group(2) == "Gi" else 1)


def mounted_file(tree: Path, path: str) -> tuple[dict[str, Any], str]:
    """The volume a file path lies in, and the file's key in it."""
    for mount in container(tree)["volumeMounts"]:
        if path.startswith(mount["mountPath"].rstrip("/") + "/"):
            volumes = {volume["name"]: volume for volume in pod_spec(tree)["volumes"]}
            return volumes[mount["name"]], path[len(mount["mountPath"]) :].lstrip("/")
    raise AssertionError(f"{tree_id(tree)}: nothing is mounted at {path}")
