"""The image of `make image` (insight-gateway:local), run in the project's own podman
(image/podman: storage and configuration under build/podman) for the image tests.

Containers share the host's network, so the gateway inside listens on a loopback port of this
machine and reaches the tests' DynamoDB servers on 127.0.0.1 as any other process here does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
PODMAN = ROOT / "image" / "podman"
BUILD = ROOT / "image" / "build"
BUILD_LOG = ROOT / "build" / "image" / "build.log"
IMAGE = "localhost/insight-gateway:local"
#: What `make image` needs on the machine (`make test` installs them: support/bootstrap).
TOOLS = ("podman", "buildah", "mmdebstrap", "runc")


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def podman(*arguments: str, timeout: float = 60, check: bool = True) -> str:
    """Run image/podman; its standard output, or AssertionError with what it said."""
    completed = subprocess.run(
        [str(PODMAN), *arguments], capture_output=True, text=True, timeout=timeout
    )
    if check and completed.returncode != 0:
        raise AssertionError(
            f"podman {' '.join(arguments)} exited {completed.returncode}: {completed.stderr}"
        )
    return completed.stdout


def build_image(timeout: float = 1800) -> None:
    """`make image`'s script: the bases and layers it already has are reused (seconds);
    its output goes to build/image/build.log. The tests run the image from podman's storage,
    so it saves no archive (`IMAGE_ARCHIVE=`): 285 MB that only `docker load` would read."""
    BUILD_LOG.parent.mkdir(parents=True, exist_ok=True)
    with BUILD_LOG.open("w") as log:
        completed = subprocess.run(
            [str(BUILD)],
            stdout=log,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            check=False,
            env={**os.environ, "IMAGE_ARCHIVE": ""},
        )
    if completed.returncode != 0:
        tail = "\n".join(BUILD_LOG.read_text().splitlines()[-40:])
        raise AssertionError(f"image/build exited {completed.returncode}:\n{tail}")


def run_once(image: str, entrypoint: str, *arguments: str) -> str:
    """One command in a fresh container of `image`, with no network (no bridge, which needs
    iptables) and no health check (whose timer needs systemd); its standard output."""
    return podman(
        "run", "--rm", "--network", "none", "--no-healthcheck",
        "--entrypoint", entrypoint, image, *arguments,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def exec(self, *command: str) -> str:
        return podman("exec", self.name, *command)

    def logs(self) -> str:
        completed = subprocess.run(
            [str(PODMAN), "logs", self.name], capture_output=True, text=True, timeout=30
        )
        return completed.stdout + completed.stderr

    def state(self) -> dict[str, object]:
        state: dict[str, object] = json.loads(
            podman("inspect", "--format", "{{json .State}}", self.name)
        )
        return state

    def wait_for_healthz(self, within: float = 60) -> float:
        """Seconds from now until /healthz first answers 200 (bounded by `within`)."""
        started = time.monotonic()
        while time.monotonic() - started < within:
            if self.state().get("Status") != "running":
                raise AssertionError(f"the container stopped: {self.logs()}")
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=1).status_code == 200:
                    return time.monotonic() - started
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"/healthz did not answer 200 within {within} s: {self.logs()}")

    def remove(self) -> None:
        podman("rm", "--force", "--time", "0", self.name, check=False)


def run_container(port: int, environment: dict[str, str]) -> Container:
    """The image's own entrypoint and CMD, detached, on host networking: uvicorn listens on
    127.0.0.1:`port` only. Its health check runs by hand (`podman healthcheck run`): there is
    no systemd here to run it on a timer (podman logs that it could not start one, and goes on;
    podman 4.3 tries even with `--health-interval disable`)."""
    name = f"insight-test-{uuid.uuid4().hex[:12]}"
    variables = {**environment, "UVICORN_HOST": "127.0.0.1", "UVICORN_PORT": str(port)}
    arguments = [f"--env={key}={value}" for key, value in sorted(variables.items())]
    podman(
        "run",
        "--detach",
        "--name",
        name,
        "--network",
        "host",
        *arguments,
        IMAGE,
    )
    return Container(name, port)


def local_credentials() -> dict[str, str]:
    """Credentials for the local servers only (botocore needs some), never the host's own."""
    return {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
