"""deploy/kubernetes: the base and every overlay render with `kubectl kustomize`, every core
object validates strictly against Kubernetes' own schemas (kubernetes-validate), the
prometheus-operator objects (no schema there) are checked for what they must say, and the
objects agree with each other and with the gateway: ports, probes, grace, memory, settings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import kubernetes_validate
import pytest

from gateway.protection.trusted_documents import TrustedDocuments
from gateway.settings import VARIABLES, Settings
from gateway.subscriptions.server_protocol import SPREAD_SHARE
from schema.root import build_schema
from tests.deploy.manifests import (
    BASE,
    KUBERNETES,
    OVERLAYS,
    ROOT,
    TREES,
    by_name,
    container,
    mebibytes,
    mounted_file,
    one,
    pod_labels,
    pod_spec,
    render,
    selects,
    settings_environment,
    tree_id,
)

#: The oldest Kubernetes the manifests are for (preStop's `sleep` action), and the newest
#: kubernetes-validate knows.
VERSIONS = ["1.30", kubernetes_validate.latest_version()]
#: prometheus-operator's kinds: custom resources, which kubernetes-validate has no schema for.
OPERATOR_KINDS = {"ServiceMonitor", "PrometheusRule"}
#: The last load test's replicas' RSS at the end of its run (docs/operations.md), in MiB.
LOAD_TEST_RSS_MIB = 160
#: The published memory budget of a socket with one subscription, compression off
#: (docs/subscriptions.md, "Memory per socket"; bench.subscriptions measures it).
SOCKET_KIB = 20
#: uvicorn's own variables, documented under the settings table of docs/configuration.md.
UVICORN_VARIABLES = {
    "UVICORN_HOST",
    "UVICORN_PORT",
    "UVICORN_TIMEOUT_GRACEFUL_SHUTDOWN",
    "FORWARDED_ALLOW_IPS",
    "WEB_CONCURRENCY",
}


# --- Rendering and validation --------------------------------------------------------------


def test_there_is_a_production_overlay() -> None:
    assert KUBERNETES / "overlays" / "production" in OVERLAYS


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_renders_the_whole_set(tree: Path) -> None:
    kinds = sorted(doc["kind"] for doc in render(tree))
    for kind in (
        "ConfigMap",
        "Deployment",
        "HorizontalPodAutoscaler",
        "NetworkPolicy",
        "PodDisruptionBudget",
        "PrometheusRule",
        "Service",
        "ServiceAccount",
        "ServiceMonitor",
    ):
        assert kind in kinds, f"{tree_id(tree)} renders no {kind}"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_every_core_object_validates_strictly(tree: Path, version: str) -> None:
    validated = 0
    for doc in render(tree):
        if doc["kind"] in OPERATOR_KINDS:
            # Not core: if kubernetes-validate ever ships their schemas, validate them too.
            with pytest.raises(kubernetes_validate.SchemaNotFoundError):
                kubernetes_validate.validate(doc, version, strict=True)
            continue
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            name = f"{doc['kind']}/{doc['metadata']['name']}"
            pytest.fail(f"{tree_id(tree)} {name}: {error.message} at {list(error.path)}")
        validated += 1
    assert validated >= 8


def test_strict_validation_refuses_a_misspelt_field() -> None:
    deployment = json.loads(json.dumps(one(BASE, "Deployment")))
    deployment["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[0], strict=True)


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_the_service_monitor_scrapes_the_services_http_port(tree: Path) -> None:
    monitor = one(tree, "ServiceMonitor")
    service = one(tree, "Service")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor["spec"]) == {"selector", "endpoints"}
    assert selects(monitor["spec"]["selector"], service["metadata"]["labels"])
    # The job label is the Service's name: the alerts' replica rules select it.
    assert service["metadata"]["name"] == "insight-gateway"
    ports = {port["name"] for port in service["spec"]["ports"]}
    [endpoint] = monitor["spec"]["endpoints"]
    assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout"}
    assert endpoint["port"] in ports
    assert endpoint["path"] == "/metrics"
    interval, timeout = (
        int(endpoint[key].removesuffix("s")) for key in ("interval", "scrapeTimeout")
    )
    assert 0 < timeout < interval


# --- The pods ------------------------------------------------------------------------------


def dockerfile_uid() -> int:
    match = re.search(r"useradd [^\n]*--uid (\d+)", (ROOT / "Dockerfile").read_text())
    assert match is not None
    return int(match.group(1))


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_probes_on_the_gateways_port(tree: Path) -> None:
    gateway = container(tree)
    environment = settings_environment(tree)
    [port] = gateway["ports"]
    assert port["containerPort"] == int(environment["UVICORN_PORT"]) == 8000
    assert gateway["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": port["name"]}
    assert gateway["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": port["name"]}
    # /readyz bounds itself (INSIGHT_READINESS_TIMEOUT_SECONDS, 2 s by default).
    readiness = Settings.from_environ(environment).readiness_timeout_seconds
    assert gateway["readinessProbe"]["timeoutSeconds"] > readiness
    [service_port] = one(tree, "Service")["spec"]["ports"]
    assert service_port["targetPort"] == port["name"]


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_locked_down(tree: Path) -> None:
    pod = pod_spec(tree)
    gateway = container(tree)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == dockerfile_uid()
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["automountServiceAccountToken"] is False
    security = gateway["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"] == {"drop": ["ALL"]}
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    writable = [
        mount["mountPath"]
        for mount in gateway["volumeMounts"]
        if "emptyDir" in volumes[mount["name"]] and not mount.get("readOnly")
    ]
    assert writable == ["/tmp"]


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_the_grace_outlasts_the_pause_and_the_shutdown(tree: Path) -> None:
    pod = pod_spec(tree)
    environment = settings_environment(tree)
    pause = container(tree)["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert pause > 0
    shutdown = int(environment["UVICORN_TIMEOUT_GRACEFUL_SHUTDOWN"])
    settings = Settings.from_environ(environment)
    assert shutdown == settings.shutdown_grace_seconds >= 20
    assert pod["terminationGracePeriodSeconds"] > pause + shutdown
    if settings.subscriptions:
        # A restart's 1012 closes, spread over three quarters of the grace, come back to the
        # other pods at no more than the rate make load's live phase held (222 a second).
        assert settings.subscriptions_max_sockets / (shutdown * SPREAD_SHARE) <= 250


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_memory_limit_covers_the_load_tests_rss_and_the_cache(tree: Path) -> None:
    resources = container(tree)["resources"]
    assert {"cpu", "memory"} <= set(resources["requests"])
    assert "cpu" not in resources["limits"]
    limit = mebibytes(resources["limits"]["memory"])
    assert mebibytes(resources["requests"]["memory"]) == limit
    settings = Settings.from_environ(settings_environment(tree))
    cache = settings.cache_max_bytes / 2**20 if settings.cache else 0
    sockets = (
        settings.subscriptions_max_sockets * SOCKET_KIB / 1024 if settings.subscriptions else 0
    )
    assert not settings.subscriptions_compression, "the budget is compression off's"
    # The measured process with half again for subscriptions and bursts, plus the cache's
    # bound with a quarter of it for the allocator, plus the sockets a replica may hold.
    needed = LOAD_TEST_RSS_MIB * 1.5 + cache * 1.25 + sockets
    assert limit >= needed, f"{tree_id(tree)}: {limit} MiB"


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_spread_scaled_and_protected_together(tree: Path) -> None:
    deployment = one(tree, "Deployment")
    labels = pod_labels(tree)
    assert selects(deployment["spec"]["selector"], labels)
    assert "replicas" not in deployment["spec"], "the HPA owns the replica count"
    keys = set()
    for constraint in pod_spec(tree)["topologySpreadConstraints"]:
        assert selects(constraint["labelSelector"], labels)
        keys.add(constraint["topologyKey"])
    assert keys == {"topology.kubernetes.io/zone", "kubernetes.io/hostname"}
    hpa = one(tree, "HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": deployment["metadata"]["name"],
    }
    cpu, sockets = hpa["spec"]["metrics"]
    assert cpu["resource"]["name"] == "cpu"
    # Open sockets, on the gauge the gateway exports, below INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS.
    assert sockets["pods"]["metric"]["name"] == "gateway_subscription_connections"
    assert 0 < int(sockets["pods"]["target"]["averageValue"]) < 10_000
    assert 2 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    budget = one(tree, "PodDisruptionBudget")
    assert budget["spec"]["selector"] == deployment["spec"]["selector"]
    assert budget["spec"]["maxUnavailable"] < hpa["spec"]["minReplicas"]
    service_selector = one(tree, "Service")["spec"]["selector"]
    assert service_selector
    assert service_selector.items() <= labels.items()
    assert selects(one(tree, "NetworkPolicy")["spec"]["podSelector"], labels)


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_the_network_policy_lets_in_the_gateways_port_and_out_what_it_calls(tree: Path) -> None:
    policy = one(tree, "NetworkPolicy")["spec"]
    assert policy["policyTypes"] == ["Ingress", "Egress"]
    ingress = {port["port"] for rule in policy["ingress"] for port in rule["ports"]}
    assert ingress == {container(tree)["ports"][0]["name"]}
    egress = {
        (port["port"], port["protocol"]) for rule in policy["egress"] for port in rule["ports"]
    }
    # DNS, AWS's HTTPS endpoints (DynamoDB, Streams, STS), Redis.
    assert egress == {(53, "UDP"), (53, "TCP"), (443, "TCP"), (6379, "TCP")}


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_the_service_account_has_an_iam_role(tree: Path) -> None:
    account = one(tree, "ServiceAccount")
    assert pod_spec(tree)["serviceAccountName"] == account["metadata"]["name"]
    role = account["metadata"]["annotations"]["eks.amazonaws.com/role-arn"]
    assert re.fullmatch(r"arn:aws:iam::\d{12}:role/[\w+=,.@-]+", role)


# --- Settings, secrets and files -----------------------------------------------------------


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_the_settings_are_the_gateways_own_and_valid(tree: Path) -> None:
    environment = settings_environment(tree)
    declared = {variable.env for variable in VARIABLES.values()}
    unknown = sorted(
        name for name in environment if name not in UVICORN_VARIABLES and name not in declared
    )
    assert unknown == [], f"{tree_id(tree)}: not settings the gateway declares: {unknown}"
    # Strict: a variable added later that is no setting stops the pod rather than warning.
    settings = Settings.from_environ(environment, warn=pytest.fail)
    assert settings.strict_settings is True
    # The gateway's metrics are per process: one uvicorn worker a pod.
    assert environment["WEB_CONCURRENCY"] == "1"
    assert settings.introspection is (tree.name == "staging")


@pytest.mark.parametrize("tree", TREES, ids=tree_id)
def test_the_trusted_documents_manifest_is_mounted_and_valid(tree: Path, tmp_path: Path) -> None:
    settings = Settings.from_environ(settings_environment(tree))
    assert settings.trusted_documents in {"audit", "enforce"}
    assert settings.trusted_documents_file is not None
    volume, key = mounted_file(tree, settings.trusted_documents_file)
    manifest = by_name(tree, "ConfigMap")[volume["configMap"]["name"]]["data"][key]
    (tmp_path / key).write_text(manifest)
    documents = TrustedDocuments.from_file(tmp_path / key, build_schema()._schema)
    assert len(documents) >= 1


def test_production_enforces_trusted_documents_and_reads_keys_from_a_required_secret() -> None:
    production = KUBERNETES / "overlays" / "production"
    settings = Settings.from_environ(settings_environment(production))
    assert settings.trusted_documents == "enforce"
    assert settings.auth_hs256_secret is None
    assert settings.auth_jwks_file is not None
    assert settings.auth_issuer
    assert settings.auth_audience
    volume, key = mounted_file(production, settings.auth_jwks_file)
    assert volume["secret"]["optional"] is False
    assert {"key": key, "path": key} in volume["secret"]["items"]
    # More than one replica: budgets and changes are shared through Redis (the Secret).
    assert settings.rate_limit_storage_uri.startswith(("redis://", "rediss://"))
    assert settings.change_feed_uri.startswith(("redis://", "rediss://"))
    assert settings.subscriptions
    assert settings.cache
