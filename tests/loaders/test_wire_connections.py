"""The lean path's own connections (loaders/wire/connection.py, pool.py, endpoint.py)
against a scripted HTTP server on 127.0.0.1: kept-alive reuse, the pool's bound, the
server's `Connection: close`, chunked answers, and every transport failure raised as
botocore's own exception (retried as botocore retries it, then DYNAMODB_UNAVAILABLE through
`Dynamo`), TLS as the client's `verify` says, and closing with the client."""

from __future__ import annotations

import asyncio
import datetime
import gc
import ipaddress
import socket
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import aioboto3
import pytest
import uvloop
from aiobotocore.config import AioConfig
from botocore.exceptions import (
    ConnectionClosedError,
    EndpointConnectionError,
    ReadTimeoutError,
    SSLError,
)
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from loaders.dynamodb import Dynamo
from loaders.errors import DynamoDBUnavailable
from loaders.tables import TableNames
from loaders.wire.connection import Connection
from loaders.wire.endpoint import WireSettings
from loaders.wire.pool import HAPPY_EYEBALLS_DELAY, ConnectionPool

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

OK_BODY = b'{"Item": {"PK": {"S": "USERS#u"}, "SK": {"S": "PAYDAY"}}}'
GET = {"TableName": "t", "Key": {"PK": {"S": "USERS#u"}, "SK": {"S": "PAYDAY"}}}

#: What the server does with one request: given the stream's writer, answer (or not).
Behaviour = Callable[[asyncio.StreamWriter], Awaitable[None]]


def answer(body: bytes = OK_BODY, *, close: bool = False) -> Behaviour:
    async def write(writer: asyncio.StreamWriter) -> None:
        connection = b"Connection: close\r\n" if close else b""
        writer.write(
            b"HTTP/1.1 200 OK\r\nx-amzn-RequestId: REQ\r\n"
            + connection
            + b"Content-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )
        await writer.drain()
        if close:
            writer.close()

    return write


async def chunked(writer: asyncio.StreamWriter) -> None:
    half = len(OK_BODY) // 2
    parts = [OK_BODY[:half], OK_BODY[half:]]
    writer.write(b"HTTP/1.1 200 OK\r\nx-amzn-RequestId: REQ\r\nTransfer-Encoding: chunked\r\n\r\n")
    for part in parts:
        writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
        await writer.drain()
    writer.write(b"0\r\n\r\n")


async def silence(writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(5)


async def half_then_close(writer: asyncio.StreamWriter) -> None:
    writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{"Item"')
    await writer.drain()
    writer.close()


async def garbage(writer: asyncio.StreamWriter) -> None:
    writer.write(b"this is not HTTP\r\n\r\n")
    await writer.drain()


@dataclass
class Script:
    """A server on 127.0.0.1 that treats its requests in order, by `behaviours` (then it
    answers OK_BODY), counting its connections and requests."""

    behaviours: list[Behaviour] = field(default_factory=list)
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    #: Connections open at once, at most.
    most_at_once: int = 0
    _open: int = 0
    handlers: set[asyncio.Task[None]] = field(default_factory=set)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.handlers.add(task)
        self.connections += 1
        self._open += 1
        self.most_at_once = max(self.most_at_once, self._open)
        try:
            while not writer.is_closing():
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                self.requests.append(head + await reader.readexactly(length))
                behaviour = self.behaviours.pop(0) if self.behaviours else answer()
                await behaviour(writer)
        except asyncio.CancelledError:
            return  # the server is closing (`scripted`)
        finally:
            self._open -= 1
            self.handlers.discard(task)
            writer.close()


@asynccontextmanager
async def scripted(script: Script, tls: ssl.SSLContext | None = None) -> AsyncIterator[str]:
    server = await asyncio.start_server(script.serve, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    finally:
        server.close()
        for handler in script.handlers:
            handler.cancel()
        await asyncio.gather(*script.handlers, return_exceptions=True)
        await server.wait_closed()


@asynccontextmanager
async def client_of(
    url: str, *, pool: int = 4, attempts: int = 2, verify: bool | str | None = None, **config: Any
) -> AsyncIterator[DynamoDBClient]:
    settings = AioConfig(
        max_pool_connections=pool,
        retries={"mode": "standard", "total_max_attempts": attempts},
        read_timeout=config.pop("read_timeout", 5),
        connect_timeout=1,
        **config,
    )
    async with aioboto3.Session().client(
        "dynamodb",
        endpoint_url=url,
        region_name="us-east-1",
        config=settings,
        verify=verify,
        aws_access_key_id="test",
        aws_secret_access_key="test",
    ) as client:
        yield client


async def no_pause(seconds: float) -> None:
    """The lean path's pause between attempts, skipped (tests/loaders/test_lean_faults.py
    holds the pauses to botocore's)."""


def dynamo_of(client: DynamoDBClient, verify: bool | str | None = None) -> Dynamo:
    wire = WireSettings.of_client(client, verify=verify)
    return Dynamo(client, TableNames(), wire=wire, retry_sleep=no_pause)


async def test_one_kept_alive_connection_serves_call_after_call() -> None:
    script = Script()
    async with scripted(script) as url, client_of(url) as client:
        dynamo = dynamo_of(client)
        for _ in range(5):
            got = await dynamo.call("get_item", **GET)
            assert got["Item"]["SK"] == {"S": "PAYDAY"}
            assert got["ResponseMetadata"]["RequestId"] == "REQ"
    assert (script.connections, len(script.requests)) == (1, 5)
    assert script.requests[0].startswith(b"POST / HTTP/1.1\r\n")
    assert b"X-Amz-Target: DynamoDB_20120810.GetItem\r\n" in script.requests[0]


async def test_the_pool_holds_at_most_its_size_and_reuses_them() -> None:
    script = Script()
    async with scripted(script) as url, client_of(url, pool=2) as client:
        dynamo = Dynamo(client, TableNames(), max_concurrency=8)
        await asyncio.gather(*(dynamo.call("get_item", **GET) for _ in range(8)))
    assert script.most_at_once <= 2
    assert script.connections == 2
    assert len(script.requests) == 8


def test_the_connections_run_on_uvloop_as_uvicorn_serves() -> None:
    async def calls() -> int:
        script = Script()
        async with scripted(script) as url, client_of(url) as client:
            dynamo = dynamo_of(client)
            for _ in range(3):
                await dynamo.call("get_item", **GET)
        return script.connections

    assert uvloop.run(calls()) == 1


async def test_a_connection_the_server_closes_is_not_reused() -> None:
    script = Script(behaviours=[answer(close=True), answer()])
    async with scripted(script) as url, client_of(url) as client:
        dynamo = dynamo_of(client)
        await dynamo.call("get_item", **GET)
        await dynamo.call("get_item", **GET)
    assert script.connections == 2


async def test_a_closed_connection_is_freed_by_reference_counting(collector_off: None) -> None:
    script = Script(behaviours=[answer(close=True), answer(close=True)])
    # Other tests' connections, some kept by their clients' pools: not this test's.
    before = {id(o) for o in gc.get_objects() if isinstance(o, Connection)}
    async with scripted(script) as url, client_of(url) as client:
        dynamo = dynamo_of(client)
        await dynamo.call("get_item", **GET)
        await dynamo.call("get_item", **GET)
        await asyncio.sleep(0.05)  # the second close reaches the connection
        left = [
            o
            for o in gc.get_objects()
            if isinstance(o, Connection) and o.closed and id(o) not in before
        ]
    assert script.connections == 2
    assert left == []


async def test_an_idle_connection_past_its_keepalive_is_not_reused() -> None:
    script = Script()
    keepalive = {"keepalive_timeout": 0.05}
    async with scripted(script) as url, client_of(url, connector_args=keepalive) as client:
        dynamo = dynamo_of(client)
        await dynamo.call("get_item", **GET)
        await asyncio.sleep(0.1)
        await dynamo.call("get_item", **GET)
    assert script.connections == 2


async def test_a_chunked_answer_is_read_whole() -> None:
    script = Script(behaviours=[chunked])
    async with scripted(script) as url, client_of(url) as client:
        got = await dynamo_of(client).call("get_item", **GET)
    assert got["Item"]["PK"] == {"S": "USERS#u"}


@pytest.mark.parametrize(
    ("behaviour", "failure"),
    [
        (silence, ReadTimeoutError),
        (half_then_close, ConnectionClosedError),
        (garbage, ConnectionClosedError),
    ],
)
async def test_a_broken_answer_is_botocores_exception_and_retried(
    behaviour: Behaviour, failure: type[Exception]
) -> None:
    script = Script(behaviours=[behaviour, answer()])
    async with scripted(script) as url, client_of(url, read_timeout=0.2) as client:
        dynamo = dynamo_of(client)
        attempts: list[int] = []
        dynamo.observers.append(lambda call: attempts.append(call.attempts))
        got = await dynamo.call("get_item", **GET)
        assert got["ResponseMetadata"]["RetryAttempts"] == 1
        script.behaviours = [behaviour, behaviour]
        with pytest.raises(DynamoDBUnavailable) as unavailable:
            await dynamo.call("get_item", **GET)
    assert isinstance(unavailable.value.__cause__, failure)
    assert attempts == [2, 2]
    # A failed exchange's connection is closed, never reused: the first fails, the second
    # answers and is kept, then fails; the last is a third.
    assert script.connections == 3


async def test_a_refused_connection_is_botocores_endpoint_error() -> None:
    script = Script()
    async with scripted(script) as url:
        pass
    async with client_of(url) as client:
        with pytest.raises(DynamoDBUnavailable) as unavailable:
            await dynamo_of(client).call("get_item", **GET)
    assert isinstance(unavailable.value.__cause__, EndpointConnectionError)


async def test_the_pool_closes_with_its_client() -> None:
    script = Script()
    async with scripted(script) as url:
        async with client_of(url) as client:
            dynamo = dynamo_of(client)
            await dynamo.call("get_item", **GET)
            assert dynamo._lean is not None
            pool = dynamo._lean.pool(url)
            assert not pool.closed
        assert pool.closed
        # The server sees the connection end.
        for _ in range(100):
            if not script._open:
                break
            await asyncio.sleep(0.01)
        assert script._open == 0


@pytest.mark.parametrize(
    ("url", "config", "refusal"),
    [
        ("http://127.0.0.1:8000", {"proxies": {"http": "http://127.0.0.1:9"}}, "a proxy"),
        ("http://127.0.0.1:8000/dynamodb", {}, "has a path"),
        ("http://127.0.0.1:8000", {"retries": {"mode": "adaptive"}}, "retry mode 'adaptive'"),
        ("http://127.0.0.1:8000", {"retries": {"mode": "legacy"}}, "retry mode 'legacy'"),
    ],
)
async def test_what_the_lean_path_cannot_follow_keeps_botocores_path(
    url: str, config: dict[str, Any], refusal: str
) -> None:
    settings = AioConfig(connect_timeout=1, **({"retries": {"mode": "standard"}} | config))
    async with aioboto3.Session().client(
        "dynamodb", endpoint_url=url, region_name="us-east-1", config=settings
    ) as client:
        wire = WireSettings.of_client(client)
        assert refusal in (wire.refusal() or "")
        assert dynamo_of(client)._lean is None
    async with client_of("http://127.0.0.1:8000") as client:
        assert WireSettings.of_client(client).refusal() is None
        assert dynamo_of(client)._lean is not None


async def test_a_proxy_from_the_environment_keeps_botocores_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "")
    async with client_of("http://dynamodb.example:8000") as client:
        assert "a proxy" in (WireSettings.of_client(client).refusal() or "")


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (and its key), signed by itself."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.mark.parametrize(("verify", "trusted"), [("bundle", True), (False, True), (None, False)])
async def test_tls_is_verified_as_the_client_says(
    tmp_path: Path, verify: str | bool | None, trusted: bool
) -> None:
    cert_path, key_path = self_signed(tmp_path)
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert_path, key_path)
    script = Script()
    async with scripted(script, server_tls) as url:
        chosen = str(cert_path) if verify == "bundle" else verify
        async with client_of(url, verify=chosen) as client:
            dynamo = dynamo_of(client, verify=chosen)
            if trusted:
                got = await dynamo.call("get_item", **GET)
                assert got["Item"]["SK"] == {"S": "PAYDAY"}
            else:
                with pytest.raises(DynamoDBUnavailable) as unavailable:
                    await dynamo.call("get_item", **GET)
                assert isinstance(unavailable.value.__cause__, SSLError)
    assert len(script.requests) == (1 if trusted else 0)


async def test_a_host_of_two_addresses_is_reached_by_the_second_while_the_first_hangs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # RFC 8305 (happy eyeballs), as for a dual-stack host whose IPv6 route is broken: the
    # first address is a listener whose queue is full, so its SYNs are dropped and the connect
    # hangs; the second is tried HAPPY_EYEBALLS_DELAY later, well within the connect timeout
    # that, tried one after the other, the first would spend whole.
    stuck = socket.socket()
    stuck.bind(("127.0.0.1", 0))
    stuck.listen(0)
    filler = socket.create_connection(stuck.getsockname())
    script = Script()
    async with scripted(script) as url:
        addresses = [stuck.getsockname(), ("127.0.0.1", urlsplit(url).port)]

        async def resolved(host: str, port: int, **_: Any) -> list[Any]:
            assert host == "dual-stack.test"
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", a) for a in addresses]

        monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", resolved)
        # The connect timeout is long against the bound below, and the bound long against
        # the delay: only a connection made by the second address in time passes, and a
        # loaded machine's stall of seconds does not fail it.
        pool = ConnectionPool(
            "http://dual-stack.test", size=1, connect_timeout=30, read_timeout=3, keepalive=5
        )
        started = time.monotonic()
        got = await pool.exchange(b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        took = time.monotonic() - started
        await pool.close()
    filler.close()
    stuck.close()
    assert got.status == 200
    assert len(script.requests) == 1
    assert HAPPY_EYEBALLS_DELAY <= took < 10
