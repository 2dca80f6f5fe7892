"""The benchmark's separate processes, each on 127.0.0.1: the delay proxy, the replaying
DynamoDB stand-in and the gateway under uvicorn (dynalite is the tests' own,
support/dynalite_server.py). Each is stopped by its own process id when the benchmark ends."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from support.processes import free_port as free_port
from support.processes import stop

ROOT = Path(__file__).resolve().parent.parent


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listening on 127.0.0.1:{port} after {timeout}s")


@contextmanager
def running(
    args: list[str], port: int, env: Mapping[str, str] | None = None, *, quiet: bool = False
) -> Iterator[subprocess.Popen[bytes]]:
    """`args` started, once listening on `port`; `quiet` drops its standard error."""
    stderr = subprocess.DEVNULL if quiet else None
    process = subprocess.Popen(args, env={**os.environ, **(env or {})}, cwd=ROOT, stderr=stderr)
    try:
        wait_for_port(port, process)
        yield process
    finally:
        stop(process)


def delay_proxy(port: int, target_port: int, delay_ms: int) -> list[str]:
    return [sys.executable, "-m", "bench.delay_proxy", str(port), str(target_port), str(delay_ms)]


def replayer(port: int, upstream: str) -> list[str]:
    return [sys.executable, "-m", "bench.replay", str(port), upstream]


def otlp_sink(port: int) -> list[str]:
    return [sys.executable, "-m", "bench.otlp_sink", str(port)]


def gateway(port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "bench.server:create_bench_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
    ]


def process_clock(pid: int) -> int:
    """Linux's CPU-time clock of process `pid`, all its threads (`clock_getcpuclockid`'s:
    CPUCLOCK_SCHED of the process, `~pid << 3 | 2`)."""
    return (~pid << 3) | 2


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (all its threads), to the nanosecond
    from its CPU-time clock; from /proc's ticks (10 ms: a 20-request turn of 4 ms requests
    read in steps of 0.5 ms a request) where that clock cannot be read."""
    try:
        return time.clock_gettime(process_clock(pid))
    except OSError:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")
