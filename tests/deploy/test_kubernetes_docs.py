"""What the docs say about deploy/kubernetes holds: the IAM policy beside the ServiceAccount is
the documented one, and docs/kubernetes.md's walk-through names files that exist and creates
the Secrets the pods read."""

from __future__ import annotations

import json
import re

from gateway.settings import Settings
from tests.deploy.manifests import (
    BASE,
    KUBERNETES,
    ROOT,
    SECRET_EXAMPLE,
    mounted_file,
    one,
    settings_environment,
)

# --- The IAM policy ------------------------------------------------------------------------


def documented_iam_policy() -> object:
    """The least-privilege policy as the docs show it: the first JSON block after the words
    "least-privilege IAM policy" in docs/security.md, or else in README.md (the policy is
    moving there; a page that only links to it does not count)."""
    for page in (ROOT / "docs" / "security.md", ROOT / "README.md"):
        if not page.exists():
            continue
        text = page.read_text()
        mention = re.search(r"least-privilege IAM policy", text, flags=re.IGNORECASE)
        if mention is None:
            continue
        block = re.search(r"```json\n(.*?)```", text[mention.start() :], re.DOTALL)
        if block is not None and '"Statement"' in block.group(1):
            return json.loads(block.group(1))
    raise AssertionError("neither docs/security.md nor README.md shows the IAM policy")


def test_the_iam_policy_beside_the_service_account_is_the_documented_one() -> None:
    shipped = json.loads((BASE / "iam-policy.json").read_text())
    assert shipped == documented_iam_policy()


# --- The walk-through (docs/kubernetes.md) -------------------------------------------------

WALK_THROUGH = ROOT / "docs" / "kubernetes.md"


def test_the_walk_through_names_files_that_exist() -> None:
    text = WALK_THROUGH.read_text()
    paths = set(re.findall(r"(?<![\w/])deploy/(?:kubernetes|prometheus|grafana)[\w./-]*\w", text))
    # The overlay the page shows how to write, for clusters without prometheus-operator.
    paths.discard("deploy/kubernetes/overlays/production-plain/kustomization.yaml")
    assert len(paths) >= 8
    assert sorted(path for path in paths if not (ROOT / path).exists()) == []


def test_the_walk_through_creates_the_secrets_the_pods_read() -> None:
    text = WALK_THROUGH.read_text()
    production = KUBERNETES / "overlays" / "production"
    namespace = one(production, "Deployment")["metadata"]["namespace"]
    created = re.findall(r"kubectl create secret generic (\S+) -n (\S+)", text)
    assert created == [("insight-gateway", namespace), ("insight-gateway-jwks", namespace)]
    assert set(re.findall(r"--from-literal=(\w+)=", text)) == set(SECRET_EXAMPLE)
    settings = Settings.from_environ(settings_environment(production))
    assert settings.auth_jwks_file is not None
    volume, key = mounted_file(production, settings.auth_jwks_file)
    assert f"--from-file={key}=" in text
    assert volume["secret"]["secretName"] == "insight-gateway-jwks"
