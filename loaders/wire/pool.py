"""`ConnectionPool`: the lean path's kept-alive connections to one DynamoDB endpoint, at most
`size` at once, each reused while its server keeps it open and it has been idle less than
`keepalive` seconds (the settings of the botocore client's own aiohttp pool).

Opening a connection fails as aiobotocore's does, with botocore's exceptions:
`ConnectTimeoutError` past `connect_timeout` (TLS handshake included), `SSLError` for TLS,
`EndpointConnectionError` for any other refusal."""

from __future__ import annotations

import asyncio
import functools
import ssl
from typing import Any
from urllib.parse import urlsplit

from botocore.exceptions import ConnectTimeoutError, EndpointConnectionError, SSLError

from loaders.wire.connection import Answer, Connection
from loaders.wire.signer import DEFAULT_PORTS

__all__ = ["ConnectionPool"]

#: Seconds before the next address is tried while one still connects (aiohttp's value).
HAPPY_EYEBALLS_DELAY = 0.25


class ConnectionPool:
    """Connections to `url` (http or https; `tls` is the context for https)."""

    def __init__(
        self,
        url: str,
        *,
        size: int,
        connect_timeout: float | None,
        read_timeout: float | None,
        keepalive: float,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"not an http(s) endpoint: {url!r}")
        self.url = url
        self._host = parts.hostname
        self._port = parts.port or DEFAULT_PORTS[parts.scheme]
        self._tls = (tls or ssl.create_default_context()) if parts.scheme == "https" else None
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._keepalive = keepalive
        self.size = size
        self._slots = asyncio.Semaphore(size)
        #: Idle connections, the most recently used last (taken first: the warmest).
        self._idle: list[Connection] = []
        self.closed = False

    async def exchange(self, request: bytes) -> Answer:
        """Send `request` on an idle connection, or a new one, and read its answer."""
        async with self._slots:
            connection = self._idle_connection() or await self._open()
            answer = await connection.exchange(request)
            if answer.keep_alive and not connection.closed and not self.closed:
                connection.idle_since = asyncio.get_running_loop().time()
                self._idle.append(connection)
            else:
                connection.close()
            return answer

    def _idle_connection(self) -> Connection | None:
        idle = self._idle
        while idle:
            connection = idle.pop()
            if connection.closed:
                continue
            if asyncio.get_running_loop().time() - connection.idle_since < self._keepalive:
                return connection
            connection.close()
        return None

    async def _open(self) -> Connection:
        loop = asyncio.get_running_loop()
        # A host with IPv6 and IPv4 addresses: the next tried after 0.25 s, all within the
        # one connect timeout (RFC 8305; aiohttp's default too). uvloop has no such option:
        # there, the addresses are tried one after the other.
        options: dict[str, Any] = (
            {"happy_eyeballs_delay": HAPPY_EYEBALLS_DELAY}
            if isinstance(loop, asyncio.BaseEventLoop)
            else {}
        )
        connection = functools.partial(Connection, self.url, self._read_timeout)
        try:
            async with asyncio.timeout(self._connect_timeout):
                _, opened = await loop.create_connection(
                    connection, self._host, self._port, ssl=self._tls, **options
                )
        except TimeoutError as error:
            raise ConnectTimeoutError(endpoint_url=self.url, error=error) from error
        except ssl.SSLError as error:
            raise SSLError(endpoint_url=self.url, error=error) from error
        except OSError as error:
            raise EndpointConnectionError(endpoint_url=self.url, error=error) from error
        return opened

    async def close(self) -> None:
        """Close every idle connection; one in use is closed when its exchange ends."""
        self.closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
        # Let the transports' own closing callbacks run before the loop moves on.
        await asyncio.sleep(0)
