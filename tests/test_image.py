"""The image users deploy, built by `make image` (podman, Debian-built bases) and run for real:
health and readiness, a GraphQL query against the tests' dynalite on this host, the user it
runs as, its health check, a graceful stop under a request, GraphiQL's assets, and what the
runtime does not carry.

Without podman (and its tools) the tests skip locally, saying why; in CI they fail."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tomllib
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from packaging.utils import canonicalize_name

from gateway.auth.tokens import mint_token
from gateway.cli.demo import ADA, seed_demo
from gateway.http.graphiql import ASSETS_PATH
from gateway.http.graphiql_assets import ASSETS, integrity_of
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames, create_tables
from schema.clock import SystemClock
from schema.principal import DASHBOARD
from support.dynalite_server import DynaliteServer
from support.faults import Delay, FaultProxy, fault_proxy
from support.processes import free_port
from tests.conftest import open_test_client, unique_table_names
from tests.container import (
    IMAGE,
    PODMAN,
    ROOT,
    Container,
    build_image,
    local_credentials,
    missing_tools,
    podman,
    run_container,
    run_once,
)
from tests.environment import table_variables
from tests.lock_export import exported_versions

SECRET = "image-tests-secret-0123456789abcdefgh"
QUERY = f'{{ user(id: "{ADA}") {{ id alert {{ alertSent balanceSetting }} }} }}'
#: The demo writes 100.00; dynalite, as DynamoDB does, stores the number as 100.
ADA_ALERT = {
    "data": {"user": {"id": ADA, "alert": {"alertSent": True, "balanceSetting": "100.00"}}}
}
#: The gateway's user and group in the Dockerfile.
GATEWAY_UID = 10001


@pytest.fixture(scope="module", autouse=True)
def image() -> str:
    missing = missing_tools()
    if missing:
        reason = f"the image tests need {', '.join(missing)} (make test installs them)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    build_image()
    return IMAGE


@pytest.fixture(scope="module")
def dynalite() -> Iterator[DynaliteServer]:
    server = DynaliteServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
async def seeded_tables(dynalite: DynaliteServer) -> TableNames:
    """The tables on dynalite, with the demo users written as of now (the container's
    gateway reads them with its own clock)."""
    names = unique_table_names()
    async with open_test_client(dynalite.endpoint_url) as client:
        await create_tables(client, names, ttl=False, streams=False)
        settings = Settings(dynamodb_endpoint_url=dynalite.endpoint_url, tables=names)
        await seed_demo(Dynamo(client, names, max_concurrency=16), datetime.now(UTC), settings)
    return names


@pytest.fixture
async def proxy(dynalite: DynaliteServer) -> AsyncIterator[FaultProxy]:
    """On 127.0.0.1 in front of dynalite, in the test's event loop (so only async tests can
    send through it): passes everything through until told otherwise."""
    async with fault_proxy(dynalite.endpoint_url) as proxy:
        yield proxy


def gateway_environment(endpoint_url: str, tables: TableNames | None = None) -> dict[str, str]:
    environment = {
        **local_credentials(),
        "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint_url,
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
    }
    if tables is not None:
        environment |= table_variables(tables)
    return environment


@pytest.fixture(scope="module")
def without_dynamodb() -> Iterator[Container]:
    """The gateway pointed at a loopback port nothing listens on."""
    container = run_container(free_port(), gateway_environment(f"http://127.0.0.1:{free_port()}"))
    try:
        container.wait_for_healthz()
        yield container
    finally:
        container.remove()


@pytest.fixture(scope="module")
def on_dynalite(dynalite: DynaliteServer, seeded_tables: TableNames) -> Iterator[Container]:
    environment = gateway_environment(dynalite.endpoint_url, seeded_tables)
    container = run_container(free_port(), environment)
    try:
        container.wait_for_healthz()
        yield container
    finally:
        container.remove()


def bearer() -> dict[str, str]:
    token = mint_token(SECRET, "dash-1", [DASHBOARD], timedelta(hours=1), SystemClock())
    return {"Authorization": f"Bearer {token}"}


def test_healthz_answers_and_readyz_is_503_without_dynamodb(without_dynamodb: Container) -> None:
    healthz = httpx.get(f"{without_dynamodb.base_url}/healthz", timeout=5)
    readyz = httpx.get(f"{without_dynamodb.base_url}/readyz", timeout=10)

    assert (healthz.status_code, healthz.json()) == (200, {"status": "ok"})
    assert (readyz.status_code, readyz.json()) == (503, {"status": "unavailable"})
    assert "server" not in healthz.headers


def test_the_health_check_passes_when_run_by_hand(without_dynamodb: Container) -> None:
    # The HEALTHCHECK survived the build (docker format), and it passes.
    configured = json.loads(
        podman("image", "inspect", "--format", "{{json .Config.Healthcheck}}", IMAGE)
    )
    assert configured["Test"][0] == "CMD"
    podman("healthcheck", "run", without_dynamodb.name)


def test_the_gateway_runs_as_its_own_unprivileged_user(without_dynamodb: Container) -> None:
    # The uvicorn process itself (pid 1), not just the image's configured user.
    status = without_dynamodb.exec("cat", "/proc/1/status")
    uids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
    gids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Gid:"))

    assert uids == [str(GATEWAY_UID)] * 4
    assert gids == [str(GATEWAY_UID)] * 4
    assert "uvicorn" in without_dynamodb.exec("cat", "/proc/1/cmdline")


def test_it_logs_json_lines(without_dynamodb: Container) -> None:
    lines = [line for line in without_dynamodb.logs().splitlines() if line.strip()]
    logged = [json.loads(line) for line in lines]

    assert any("Started server process" in entry["message"] for entry in logged), lines
    assert all({"time", "level", "logger", "message"} <= set(entry) for entry in logged)


def test_graphiql_assets_are_served_from_the_image(without_dynamodb: Container) -> None:
    for asset in ASSETS:
        response = httpx.get(f"{without_dynamodb.base_url}{ASSETS_PATH}/{asset.name}", timeout=5)
        assert response.status_code == 200, asset.name
        assert integrity_of(response.content) == asset.integrity


def test_readyz_and_a_real_query_on_dynalite(on_dynalite: Container) -> None:
    # Ready once DescribeTable answers for every table within the readiness timeout (2 s):
    # the first calls of a fresh process on a busy machine may take longer (bounded: 10 tries).
    for _ in range(10):
        readyz = httpx.get(f"{on_dynalite.base_url}/readyz", timeout=10)
        if readyz.status_code == 200:
            break
    response = httpx.post(
        f"{on_dynalite.base_url}/graphql", json={"query": QUERY}, headers=bearer(), timeout=10
    )

    assert (readyz.status_code, readyz.json()) == (200, {"status": "ready"}), on_dynalite.logs()
    assert response.status_code == 200
    assert response.json() == ADA_ALERT


def test_without_a_token_the_query_is_refused(on_dynalite: Container) -> None:
    response = httpx.post(f"{on_dynalite.base_url}/graphql", json={"query": QUERY}, timeout=10)

    assert response.status_code == 401


async def test_sigterm_lets_a_request_in_flight_finish_and_exits_0_within_the_grace(
    proxy: FaultProxy, seeded_tables: TableNames
) -> None:
    """The request's BatchGetItem is held at the proxy while `podman stop` sends SIGTERM; the
    full answer comes back, then the process exits 0 before podman's SIGKILL (the grace)."""
    grace = 10
    environment = gateway_environment(proxy.endpoint_url, seeded_tables)
    environment["UVICORN_TIMEOUT_GRACEFUL_SHUTDOWN"] = str(grace)
    container = await asyncio.to_thread(run_container, free_port(), environment)
    try:
        await asyncio.to_thread(container.wait_for_healthz)
        proxy.inject("BatchGetItem", Delay(2.0), times=1)
        async with httpx.AsyncClient(base_url=container.base_url, timeout=30) as client:
            in_flight = asyncio.create_task(
                client.post("/graphql", json={"query": QUERY}, headers=bearer())
            )
            for _ in range(500):  # until the proxy holds the call (bounded: 5 s)
                if proxy.injected["BatchGetItem"]:
                    break
                await asyncio.sleep(0.01)
            assert proxy.injected["BatchGetItem"] == 1
            stop = await asyncio.create_subprocess_exec(
                str(PODMAN), "stop", "--time", str(grace), container.name,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            response = await in_flight
        _, stderr = await asyncio.wait_for(stop.communicate(), timeout=grace + 30)

        assert stop.returncode == 0, stderr.decode()
        assert response.status_code == 200
        assert response.json() == ADA_ALERT
        state = await asyncio.to_thread(container.state)
        # 0, not 137: uvicorn stopped by itself before podman's SIGKILL.
        assert (state["Status"], state["ExitCode"]) == ("exited", 0)
        assert "Shutting down" in container.logs()
    finally:
        await asyncio.to_thread(container.remove)


def test_the_runtime_has_no_pip_no_compiler_and_no_node() -> None:
    probe = (
        "import importlib.util, json, shutil;"
        "print(json.dumps({"
        "'modules': [m for m in ('pip', 'setuptools', 'wheel')"
        " if importlib.util.find_spec(m)],"
        "'programs': [p for p in ('pip', 'pip3', 'gcc', 'cc', 'c++', 'make', 'node', 'npm')"
        " if shutil.which(p)]}))"
    )
    found = json.loads(run_once(IMAGE, "python", "-c", probe))

    assert found == {"modules": [], "programs": []}
    assert run_once(IMAGE, "id", "-u").strip() == str(GATEWAY_UID)


def test_the_image_holds_exactly_the_locked_runtime_packages() -> None:
    """The lock's runtime packages with the otel extra (as the Dockerfile exports them), each
    at its locked version, and nothing else but the gateway itself."""
    locked = exported_versions("--no-dev", "--extra", "otel")
    probe = (
        "import importlib.metadata, json;"
        "print(json.dumps({d.metadata['Name']: d.version"
        " for d in importlib.metadata.distributions()}))"
    )
    installed = json.loads(run_once(IMAGE, "python", "-c", probe))
    in_image = {canonicalize_name(name): version for name, version in installed.items()}

    assert {"strawberry-graphql", "graphql-core", "opentelemetry-sdk"} <= set(locked)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert in_image.pop(canonicalize_name("insight-gateway")) == version
    assert in_image == locked


def test_the_hosts_ca_bundle_mounted_for_the_build_is_in_no_layer() -> None:
    """image/build mounts the host's bundle over the bases' own for the RUN steps: the image
    keeps the runtime base's bundle, byte for byte, and no mount point of it."""
    runtime_base = subprocess.run(
        [str(ROOT / "image" / "base"), "runtime"], capture_output=True, text=True, check=True
    ).stdout.strip()
    bundle = "/etc/ssl/certs/ca-certificates.crt"

    in_image = run_once(IMAGE, "sha256sum", bundle)
    in_base = run_once(runtime_base, "sha256sum", bundle)

    assert in_image == in_base
    assert run_once(IMAGE, "ls", "/run").split() == ["lock"]
