"""One kept-alive HTTP/1.1 connection to DynamoDB: an asyncio `Protocol` whose answers are
parsed by httptools (uvicorn's parser, llhttp), one exchange at a time.

Failures are botocore's own exceptions, as aiobotocore raises them for aiohttp's: a
connection closed (or an answer that is not HTTP) before the answer is whole is
`ConnectionClosedError`, no byte for `read_timeout` seconds is `ReadTimeoutError`. Either
way the connection is closed and never reused. An interim answer (1xx) is passed over for
the final one, and an answer with neither a length nor chunks ends where the connection
does, as aiohttp reads them."""

from __future__ import annotations

import asyncio
from typing import cast

import httptools
from botocore.exceptions import ConnectionClosedError, HTTPClientError, ReadTimeoutError

__all__ = ["Answer", "Connection"]


class Answer:
    """A whole answer: its status, body and headers (kept as they came, and decoded only
    when asked for: a read needs one of them)."""

    __slots__ = ("_raw_headers", "body", "keep_alive", "status")

    def __init__(
        self, status: int, raw_headers: list[tuple[bytes, bytes]], body: bytes, keep_alive: bool
    ) -> None:
        self.status = status
        self._raw_headers = raw_headers
        self.body = body
        #: Whether the server keeps the connection open for the next request.
        self.keep_alive = keep_alive

    def header(self, name: bytes) -> str:
        """The value of header `name` (lowercase), "" when absent; repeated ones joined."""
        values = [value for key, value in self._raw_headers if key.lower() == name]
        return b", ".join(values).decode("latin-1")

    @property
    def headers(self) -> dict[str, str]:
        """Every header, by lowercase name."""
        names = dict.fromkeys(key.lower() for key, _ in self._raw_headers)
        return {name.decode("latin-1"): self.header(name) for name in names}


class Connection(asyncio.Protocol):
    """A connection to `url`; `exchange` writes a request and waits for its answer."""

    def __init__(self, url: str, read_timeout: float | None) -> None:
        self._url = url
        self._read_timeout = read_timeout
        self._loop = asyncio.get_running_loop()
        self._parser = httptools.HttpResponseParser(self)
        # asyncio's or uvloop's (which is no subclass of asyncio.Transport).
        self._transport: asyncio.WriteTransport | None = None
        self._answer: asyncio.Future[Answer] | None = None
        self._headers: list[tuple[bytes, bytes]] = []
        self._body: list[bytes] = []
        self._status = 0
        self._keep_alive = True
        # Whether the answer being read ends only when the server closes (HTTP/1.0 style).
        self._close_delimited = False
        #: When a byte last came (or the request went): the read timeout counts from it.
        self._last_read = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self.closed = False
        #: The loop's time when the connection was last put back idle (the pool's).
        self.idle_since = 0.0

    # --- asyncio's Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast("asyncio.WriteTransport", transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        # No byte comes any more. The parser holds this protocol's callbacks and it the
        # parser: a cycle, which kept a closed connection for the collector. Cut.
        del self._parser
        if self._close_delimited and exc is None:
            # An answer with neither a length nor chunks ends where the connection does.
            self._close_delimited = False
            self.on_message_complete()
            return
        self._fail(ConnectionClosedError(error=exc, request=None, endpoint_url=self._url))

    def data_received(self, data: bytes) -> None:
        self._last_read = self._loop.time()
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as error:
            # Not HTTP (aiohttp's BadStatusLine, which aiobotocore maps so).
            self._fail(ConnectionClosedError(error=error, request=None, endpoint_url=self._url))
            self.close()

    # --- httptools' callbacks -------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name, value))

    def on_headers_complete(self) -> None:
        self._status = self._parser.get_status_code()
        self._keep_alive = self._parser.should_keep_alive()
        names = {name.lower() for name, _ in self._headers}
        self._close_delimited = (
            not self._keep_alive
            and self._status >= 200
            and self._status not in (204, 304)
            and b"content-length" not in names
            and b"transfer-encoding" not in names
        )

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        self._close_delimited = False
        if 100 <= self._status < 200:
            # An interim answer (100 Continue, 103 Early Hints): the final one follows.
            self._headers, self._body = [], []
            return
        answer = Answer(self._status, self._headers, b"".join(self._body), self._keep_alive)
        self._headers, self._body = [], []
        future, self._answer = self._answer, None
        if future is not None and not future.done():
            future.set_result(answer)
        else:
            # An answer nobody asked for: the connection's state is unknown.
            self.close()

    # --- the exchange ---------------------------------------------------------------------

    async def exchange(self, request: bytes) -> Answer:
        """Write `request` (a whole HTTP/1.1 request) and wait for its answer. Cancelled or
        failed, the connection is closed: half an exchange leaves it unusable."""
        transport = self._transport
        if transport is None or self.closed:
            raise ConnectionClosedError(error=None, request=None, endpoint_url=self._url)
        future = self._answer = self._loop.create_future()
        self._last_read = self._loop.time()
        transport.write(request)
        if self._timer is None and self._read_timeout is not None:
            self._timer = self._loop.call_at(self._last_read + self._read_timeout, self._due)
        try:
            answer: Answer = await future
            return answer
        except BaseException:
            self.close()
            raise

    def _due(self) -> None:
        # The read timeout is aiohttp's sock_read (botocore's read_timeout): the longest
        # wait for the next bytes, not for the whole answer. One timer serves exchange
        # after exchange (made and cancelled a call, it cost more than the check): when it
        # comes it looks at the bytes' last arrival, and waits on or stops.
        assert self._read_timeout is not None
        self._timer = None
        if self._answer is None or self.closed:
            return
        due = self._last_read + self._read_timeout
        if self._loop.time() < due:
            self._timer = self._loop.call_at(due, self._due)
            return
        self._fail(ReadTimeoutError(endpoint_url=self._url, error="no answer in time"))
        self.close()

    def _fail(self, error: HTTPClientError) -> None:
        future, self._answer = self._answer, None
        if future is not None and not future.done():
            future.set_exception(error)

    def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._transport is not None:
            self._transport.close()
