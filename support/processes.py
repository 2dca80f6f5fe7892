"""A server the tests (and the benchmarks) start as a child process on 127.0.0.1: a free port
for it, wait until it answers, and stop it by its own process id."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from typing import Any

import httpx

#: Seconds a stopped process has to exit on SIGTERM before it is killed.
STOP_SECONDS = 10.0


def free_port() -> int:
    """A port free on 127.0.0.1 now (another process may take it before it is bound)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def is_ok(response: httpx.Response) -> bool:
    return response.status_code == 200


def wait_until_answered(
    url: str,
    process: subprocess.Popen[Any],
    *,
    seconds: float,
    output: Callable[[], str] = lambda: "",
    ready: Callable[[httpx.Response], bool] = is_ok,
) -> httpx.Response:
    """GET `url` until an answer `ready` accepts (by default a 200), and return it (bounded by
    `seconds`). Fails as soon as `process` exits; `output` (what the process wrote) goes into
    the failure."""
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}:\n{output()}")
        try:
            response = httpx.get(url, timeout=1)
            if ready(response):
                return response
        except httpx.TransportError:
            pass  # not listening yet
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer in {seconds} s:\n{output()}")
        time.sleep(0.1)


def stop(process: subprocess.Popen[Any], seconds: float = STOP_SECONDS) -> None:
    """SIGTERM, and SIGKILL if it has not exited within `seconds`."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=seconds)
