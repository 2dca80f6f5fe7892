"""deploy/nginx.conf and the Kubernetes ingress example limit the connections of one client
address (issue 42): sockets that never send their `connection_init` cannot be opened without
end from one address. nginx runs as written (its ports rendered), in front of a stand-in
replica that holds every request."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from bench.load.topology import render_nginx
from support.processes import free_port, stop
from tests.deploy.manifests import BASE, ROOT, one

needs_nginx = pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="Debian's nginx is not installed (apt-get install nginx; .ci/run does)",
)

#: deploy/nginx.conf's `limit_conn insight_addresses`.
PER_ADDRESS = 100
#: An address of the loopback range that is not 127.0.0.1 (which the config leaves alone).
CLIENT = "127.0.0.2"
WAIT_SECONDS = 20.0


@asynccontextmanager
async def _holding_replica(port: int) -> AsyncIterator[None]:
    """A replica that reads requests and never answers: each stays in flight until the block
    ends, when every connection it accepted is closed (a socket left to the garbage collector
    is a ResourceWarning, which fails a later test)."""
    held: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        while await reader.read(4096):
            pass

    server = await asyncio.start_server(hold, "127.0.0.1", port)
    try:
        yield
    finally:
        server.close()
        for writer in held:
            writer.close()
        await server.wait_closed()


def _start_nginx(tmp_path: Path, listen: int, replica: int) -> subprocess.Popen[bytes]:
    conf = tmp_path / "nginx.conf"
    conf.write_text(render_nginx(listen, [replica, replica]))
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    pid = f"daemon off; pid {tmp_path / 'nginx.pid'};"
    args = [binary, "-p", f"{tmp_path}/", "-c", str(conf), "-e", str(tmp_path / "error.log")]
    return subprocess.Popen([*args, "-g", pid], cwd=tmp_path)


@asynccontextmanager
async def _nginx(tmp_path: Path, listen: int, replica: int) -> AsyncIterator[None]:
    process = _start_nginx(tmp_path, listen, replica)
    error_log = tmp_path / "error.log"
    try:
        for _ in range(500):
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", listen)
            except OSError:
                assert process.poll() is None, error_log.read_text()
                await asyncio.sleep(0.02)
                continue
            writer.close()
            break
        yield
    finally:
        stop(process)


async def _request(listen: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", listen, local_addr=(CLIENT, 0))
    writer.write(b"GET /graphql HTTP/1.1\r\nHost: gateway.example\r\n\r\n")
    await writer.drain()
    return reader, writer


@needs_nginx
async def test_one_address_holds_at_most_its_connections(tmp_path: Path) -> None:
    listen, replica_port = free_port(), free_port()
    opened: list[asyncio.StreamWriter] = []
    try:
        async with _holding_replica(replica_port), _nginx(tmp_path, listen, replica_port):
            readers = []
            for _ in range(PER_ADDRESS + 1):
                reader, writer = await _request(listen)
                readers.append(reader)
                opened.append(writer)
            # The replica answers nothing: the only answer is nginx's refusal of one.
            waits = [asyncio.ensure_future(reader.readline()) for reader in readers]
            done, pending = await asyncio.wait(
                waits, timeout=WAIT_SECONDS, return_when=asyncio.FIRST_COMPLETED
            )
            for wait in pending:
                wait.cancel()
    finally:
        for writer in opened:
            writer.close()
    assert [wait.result()[:12] for wait in done] == [b"HTTP/1.1 429"]


def test_the_loopback_address_of_the_load_test_is_not_limited() -> None:
    shipped = (Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf").read_text()
    assert f"limit_conn insight_addresses {PER_ADDRESS};" in shipped
    assert "limit_conn_zone $insight_client_address zone=insight_addresses:10m;" in shipped
    assert '127.0.0.1 "";' in shipped


def test_the_ingress_example_limits_connections_per_address_as_nginx_does() -> None:
    example = ROOT / "deploy" / "kubernetes" / "examples" / "ingress-nginx.yaml"
    ingress = yaml.safe_load(example.read_text())
    kubernetes_validate.validate(ingress, kubernetes_validate.latest_version(), strict=True)
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/limit-connections"] == str(PER_ADDRESS)
    service = one(BASE, "Service")
    (path,) = ingress["spec"]["rules"][0]["http"]["paths"]
    backend = path["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"]
    assert backend["port"]["name"] in {port["name"] for port in service["spec"]["ports"]}
