"""The production topology on 127.0.0.1: a DynamoDB (dynalite, or moto's server where the
DynamoDB Streams of the live phase are needed), gateway replicas (uvicorn, one worker
each, the image's entry point), and Debian's nginx in front of them with the repository's
own `deploy/nginx.conf` (only its ports rendered). Every process is this run's own, on a
free loopback port, and is stopped by its process id on the way out.

A replica restart is the rolling restart an orchestrator does: SIGTERM (uvicorn stops
accepting, finishes what it has, exits), then the same command again, ready once
`/readyz` answers 200.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bench.processes import ROOT, free_port
from gateway.settings import Settings
from support.dynalite_server import DynaliteServer

NGINX_CONF = ROOT / "deploy" / "nginx.conf"
#: The replicas' shutdown grace (uvicorn's --timeout-graceful-shutdown), as the production
#: overlay's: a replica's sockets are closed over three quarters of it at SIGTERM.
GRACE_SECONDS = 60
SECRET = "load-secret-0123456789abcdef0123456789"
READY_SECONDS = 30.0
STOP_SECONDS = GRACE_SECONDS + 10.0


class Backend(Protocol):
    """The DynamoDB the replicas use: a process of this run's own."""

    @property
    def pid(self) -> int: ...

    @property
    def endpoint_url(self) -> str: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def wait_ready(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=1) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{url} was not ready within {READY_SECONDS} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Replica:
    """One gateway process: uvicorn, one worker, the image's factory."""

    name: str
    port: int
    env: Mapping[str, str]
    logs: Path
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> None:
        args = [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "gateway.asgi:create_app_from_environ",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--workers",
            "1",
            "--no-access-log",
            "--timeout-graceful-shutdown",
            str(GRACE_SECONDS),
            # As the image: compression per INSIGHT_SUBSCRIPTIONS_COMPRESSION, and the sockets
            # closed with 1012 spread over the grace period at SIGTERM.
            "--ws",
            "gateway.subscriptions.server_protocol:GatewayWebSocketProtocol",
            # As the image: the request head bounded, the live HTTP streams ended with `retry:` at
            # SIGTERM.
            "--http",
            "gateway.live_http.server_protocol:GatewayHttpProtocol",
        ]
        log = self.logs / f"{self.name}-{self.restarts}.log"
        with log.open("wb") as output:
            self.process = subprocess.Popen(
                args, env={**os.environ, **self.env}, cwd=ROOT, stdout=output, stderr=output
            )
        wait_ready(f"http://127.0.0.1:{self.port}/readyz", self.process, log)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)

    def restart(self) -> float:
        """SIGTERM, wait for the exit, start again; the seconds it was away."""
        started = time.monotonic()
        self.stop()
        self.restarts += 1
        self.start()
        return time.monotonic() - started


def render_nginx(listen: int, upstreams: list[int]) -> str:
    """deploy/nginx.conf with its listen port and its replicas' ports replaced."""
    text = NGINX_CONF.read_text()
    text = re.sub(r"listen 127\.0\.0\.1:\d+", f"listen 127.0.0.1:{listen}", text, count=1)
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+.*$", text, flags=re.MULTILINE)
    # Each upstream group lists the replicas in order (the requests', the sockets').
    if not servers or len(servers) % len(upstreams):
        raise ValueError(
            f"deploy/nginx.conf has {len(servers)} servers, not {len(upstreams)} a group"
        )
    for index, line in enumerate(servers):
        port = upstreams[index % len(upstreams)]
        text = text.replace(line, re.sub(r"127\.0\.0\.1:\d+", f"127.0.0.1:{port}", line), 1)
    return text


@dataclass
class Topology:
    """nginx -> replicas -> DynamoDB endpoint, all on 127.0.0.1 (see `topology()`)."""

    workdir: Path
    backend: Backend
    nginx: subprocess.Popen[bytes]
    url: str
    replicas: list[Replica]
    #: Extra environment every replica shares (the rate-limit storage, when there is one).
    shared_env: dict[str, str] = field(default_factory=dict)

    def pids(self) -> dict[str, list[int]]:
        """The processes whose CPU the report shows, by role."""
        return {
            "nginx": [self.nginx.pid, *children(self.nginx.pid)],
            **{replica.name: [replica.pid] for replica in self.replicas},
            "dynamodb": [self.backend.pid],
        }

    def point_replicas_at(self, endpoint: str) -> None:
        """Restart every replica, one at a time, with another DynamoDB endpoint."""
        for replica in self.replicas:
            replica.env = {**replica.env, "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint}
            replica.restart()


def replica_env(endpoint: str) -> dict[str, str]:
    return {
        "AWS_ACCESS_KEY_ID": "load",
        "AWS_SECRET_ACCESS_KEY": "load",
        "AWS_REGION": "us-east-1",
        "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint,
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_MAX_QUERY_COST": "100000",
    }


#: Seconds a killed replica's stream shards stay leased: short, so that the live phase's
#: takeover is seen within it (the default, 10 s, is for production).
LIVE_LEASE_SECONDS = "5"


def live_env(shared: Mapping[str, str]) -> dict[str, str]:
    """Subscriptions and the coherent cache on, the change feed through the budgets' Redis
    (publish/subscribe)."""
    redis = shared.get("INSIGHT_RATE_LIMIT_STORAGE_URI")
    if redis is None:
        raise RuntimeError("the live phase needs redis-server: apt-get install redis-server")
    return {
        "INSIGHT_SUBSCRIPTIONS": "true",
        "INSIGHT_CACHE": "on",
        "INSIGHT_CHANGE_FEED_URI": redis,
        "INSIGHT_STREAM_LEASE_SECONDS": LIVE_LEASE_SECONDS,
        # The simulated clients share a few users' tokens, many sockets to each.
        "INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS_PER_PRINCIPAL": "10000",
    }


@contextmanager
def rate_limit_storage(workdir: Path) -> Iterator[dict[str, str]]:
    """The replicas' shared rate-limit storage, when the gateway has one (issue 12's
    INSIGHT_RATE_LIMIT_STORAGE_URI): a redis-server of this run's own on a free port.
    Until then, nothing to share: each replica keeps no state."""
    fields = getattr(Settings, "__dataclass_fields__", {})
    server = shutil.which("redis-server")
    if "rate_limit_storage_uri" not in fields or server is None:
        yield {}
        return
    port = free_port()
    args = [server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    with (workdir / "redis.log").open("wb") as output:
        redis = subprocess.Popen(args, stdout=output, stderr=output)
    try:
        yield {"INSIGHT_RATE_LIMIT_STORAGE_URI": f"redis://127.0.0.1:{port}/0"}
    finally:
        stop(redis)


@contextmanager
def topology(
    workdir: Path,
    prepare: Callable[[str], None],
    replicas: int = 2,
    *,
    backend: Callable[[], Backend] = DynaliteServer,
    live: bool = False,
    settings: Mapping[str, str] | None = None,
) -> Iterator[Topology]:
    """Start the DynamoDB `backend` (then `prepare(endpoint)`: its tables and items), the
    replicas and nginx; stop them all on the way out. `live`: the replicas serve
    subscriptions, read the tables' streams and share changes through the run's Redis.
    `settings`: more of the replicas' environment."""
    nginx_binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx_binary).exists():
        raise RuntimeError("nginx is not installed: apt-get install nginx (make load does)")
    workdir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        dynamodb = backend()
        dynamodb.start()
        stack.callback(dynamodb.stop)
        prepare(dynamodb.endpoint_url)
        shared = stack.enter_context(rate_limit_storage(workdir))
        if live:
            shared = {**shared, **live_env(shared)}
        env = {**replica_env(dynamodb.endpoint_url), **shared, **(settings or {})}
        started: list[Replica] = []
        for index in range(replicas):
            replica = Replica(f"replica-{index + 1}", free_port(), env, workdir)
            stack.callback(replica.stop)
            replica.start()
            started.append(replica)
        listen = free_port()
        conf = workdir / "nginx.conf"
        conf.write_text(render_nginx(listen, [replica.port for replica in started]))
        directives = f"daemon off; pid {workdir / 'nginx.pid'};"
        error_log = workdir / "nginx-error.log"
        args = [nginx_binary, "-p", f"{workdir}/", "-c", str(conf), "-e", str(error_log)]
        nginx = subprocess.Popen([*args, "-g", directives], cwd=workdir)
        stack.callback(stop, nginx)
        url = f"http://127.0.0.1:{listen}"
        wait_ready(url + "/readyz", nginx, error_log)
        yield Topology(workdir, dynamodb, nginx, url, started, shared)
