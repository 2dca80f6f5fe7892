"""The Dockerfile's properties, read from the file, and its CMD and HEALTHCHECK run here."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.processes import free_port, stop, wait_until_answered
from tests.dockerfile import Stage, global_arguments, read_stages

ROOT = Path(__file__).resolve().parents[1]
STAGES = read_stages(ROOT / "Dockerfile")
#: The production bases; `make image` passes local Debian-built ones as build arguments.
PRODUCTION_BASES = {
    "PYTHON_IMAGE": "python:3.11.7-slim-bookworm",
    "NODE_IMAGE": "node:20.20-bookworm-slim",
    "BUILD_IMAGE": "${PYTHON_IMAGE}",
}
RUNTIME = STAGES[-1]
# Variables the image may set: Python's and uvicorn's own, never the gateway's configuration.
IMAGE_VARIABLES = {
    "PATH",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "UVICORN_HOST",
    "UVICORN_PORT",
    "UVICORN_TIMEOUT_GRACEFUL_SHUTDOWN",
}


def _stage(name: str) -> Stage:
    return next(stage for stage in STAGES if stage.name == name)


def _runs(stage: Stage) -> str:
    return "\n".join(run.arguments for run in stage.all("RUN"))


def test_it_is_multi_stage_with_every_base_image_pinned() -> None:
    assert len(STAGES) >= 2
    for stage in STAGES:
        image, _, tag = stage.base.partition(":")
        assert tag, f"{image} has no tag"
        assert tag != "latest"


def test_the_bases_are_build_arguments_whose_defaults_are_the_production_images() -> None:
    assert global_arguments(ROOT / "Dockerfile") == PRODUCTION_BASES
    assert [(stage.name, stage.base) for stage in STAGES] == [
        ("node", "node:20.20-bookworm-slim"),
        ("build", "python:3.11.7-slim-bookworm"),
        ("runtime", "python:3.11.7-slim-bookworm"),
    ]
    # As `make image` builds it: the build stage on its own base, the runtime on another.
    local = read_stages(
        ROOT / "Dockerfile",
        {"PYTHON_IMAGE": "localhost/runtime:1", "NODE_IMAGE": "localhost/build:1",
         "BUILD_IMAGE": "localhost/build:1"},
    )  # fmt: skip
    assert [stage.base for stage in local] == [
        "localhost/build:1",
        "localhost/build:1",
        "localhost/runtime:1",
    ]


def test_only_the_build_stage_may_be_given_the_hosts_ca_bundle() -> None:
    # Passed by `make image` for a proxy that intercepts HTTPS; the bundle itself is mounted
    # for the RUN steps, and no stage copies it.
    assert [arg.arguments for arg in _stage("build").all("ARG")] == [
        "PIP_CERT",
        "NODE_EXTRA_CA_CERTS",
    ]
    for stage in STAGES:
        for copy in stage.all("COPY") + stage.all("ADD"):
            assert "ca-certificates" not in copy.arguments


def test_the_build_stage_fetches_the_graphiql_assets_then_builds_and_installs_the_wheel() -> None:
    build = _stage("build")
    runs = _runs(build)
    copied = " ".join(copy.arguments for copy in build.all("COPY"))

    assert "python -m gateway.http.graphiql_assets" in runs
    assert runs.index("gateway.http.graphiql_assets") < runs.index("pip wheel")
    assert 'wheel="$(ls /wheels/insight_gateway-*.whl)"' in runs
    # The locked versions with the tracing extra, by hash and with nothing resolved; then the
    # wheel itself without dependencies, never a same-named package from an index; then pip
    # proves the installed set complete.
    assert "uv.lock" in copied
    export = "uv export --frozen --no-dev --no-emit-project --extra otel"
    install = "pip install --no-cache-dir --require-hashes --no-deps -r /tmp/requirements.txt"
    wheel = 'pip install --no-cache-dir --no-deps "${wheel}"'
    assert runs.index(export) < runs.index(install) < runs.index(wheel) < runs.index("pip check")


def test_the_runtime_stage_is_slim_non_root_and_gets_only_the_built_environment() -> None:
    assert "slim" in RUNTIME.base
    user = RUNTIME.last("USER").arguments.split(":")[0]
    assert user not in {"root", "0"}
    assert user in _runs(RUNTIME)  # created in this stage
    # USER comes before CMD, so the gateway never runs as root.
    keywords = [i.keyword for i in RUNTIME.instructions]
    assert keywords.index("USER") < keywords.index("CMD")
    copies = RUNTIME.all("COPY")
    assert [c.flags().get("from") for c in copies] == ["build"]
    # Nothing is installed in the runtime; the base's own pip is taken out (the image test
    # checks the built image has none).
    assert "pip install" not in _runs(RUNTIME)
    assert "pip uninstall --yes --quiet pip setuptools wheel" in _runs(RUNTIME)
    assert "pip uninstall --yes --quiet pip setuptools" in _runs(_stage("build"))


def test_configuration_comes_only_from_the_environment() -> None:
    env = RUNTIME.environment()

    assert set(env) <= IMAGE_VARIABLES
    assert not RUNTIME.all("ARG")
    for stage in STAGES:
        for name in stage.environment():
            assert not name.startswith(("INSIGHT_", "AWS_")), name
    # The CMD names the factory and nothing the contract's environment configures.
    assert RUNTIME.last("CMD").exec_form() == [
        "uvicorn",
        "--factory",
        "gateway.asgi:create_app_from_environ",
        "--no-server-header",
        "--ws",
        "gateway.subscriptions.server_protocol:GatewayWebSocketProtocol",
        "--http",
        "gateway.live_http.server_protocol:GatewayHttpProtocol",
    ]


def test_the_healthcheck_asks_healthz_on_the_served_port() -> None:
    healthcheck = RUNTIME.last("HEALTHCHECK")
    command = healthcheck.exec_form()

    assert command[:2] == ["python", "-c"]
    assert "/healthz" in command[2]
    assert "UVICORN_PORT" in command[2]
    assert {"interval", "timeout", "retries"} <= set(healthcheck.flags())
    assert RUNTIME.last("EXPOSE").arguments == RUNTIME.environment()["UVICORN_PORT"]


def test_the_cmd_factory_is_importable_and_the_build_context_leaves_local_state_out() -> None:
    command = RUNTIME.last("CMD").exec_form()
    for named in (command[2], command[command.index("--ws") + 1]):
        module, _, attribute = named.partition(":")
        assert callable(getattr(importlib.import_module(module), attribute))

    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "gateway/static/graphiql", "tests"} <= set(ignored)


@pytest.fixture
def image_environment(endpoint_url: str) -> dict[str, str]:
    """The process environment the image gives its CMD, here: the image's own variables, the
    virtualenv's bin first on PATH, a loopback address and a free port."""
    env = dict(os.environ)
    env.update({k: v for k, v in RUNTIME.environment().items() if k != "PATH"})
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["UVICORN_HOST"] = "127.0.0.1"
    env["UVICORN_PORT"] = str(free_port())
    env["INSIGHT_DYNAMODB_ENDPOINT_URL"] = endpoint_url
    env["INSIGHT_AUTH_HS256_SECRET"] = "a-local-test-secret-of-at-least-32-bytes"
    return env


@pytest.fixture
def served(image_environment: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    with subprocess.Popen(
        RUNTIME.last("CMD").exec_form(),
        env=image_environment,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    ) as process:
        try:
            yield process
        finally:
            stop(process)


def test_the_exact_cmd_serves_healthz_and_the_healthcheck_follows_it(
    served: subprocess.Popen[bytes], image_environment: dict[str, str]
) -> None:
    url = f"http://127.0.0.1:{image_environment['UVICORN_PORT']}/healthz"
    assert served.stderr is not None
    stderr = served.stderr

    def exited_with() -> str:  # a live process' pipe has no end to read to
        return stderr.read().decode() if served.poll() is not None else ""

    # The first answer, whatever it is: it must be the 200.
    response = wait_until_answered(
        url, served, seconds=30, output=exited_with, ready=lambda _: True
    )
    assert response.status_code == 200
    assert "server" not in response.headers

    healthcheck = RUNTIME.last("HEALTHCHECK").exec_form()
    assert _run(healthcheck, image_environment) == 0

    served.terminate()
    served.wait(timeout=10)
    assert _run(healthcheck, image_environment) != 0
    # The factory replaced uvicorn's plain logging: every line it wrote is a JSON object.
    assert served.stderr is not None
    lines = served.stderr.read().decode().splitlines()
    logged = [json.loads(line) for line in lines if line.strip()]
    assert any("Started server process" in entry["message"] for entry in logged), lines
    assert all({"time", "level", "logger", "message"} <= set(entry) for entry in logged)


def _run(command: list[str], env: dict[str, str]) -> int:
    return subprocess.run(command, env=env, capture_output=True, timeout=30).returncode
