"""A fault-injecting HTTP proxy on 127.0.0.1 in front of a DynamoDB server.

The gateway's client talks to the proxy as it would to DynamoDB; each rule makes the next
matching requests fail the way DynamoDB or the network fails: a throttling or 500 answer
(botocore's own retry code sees real responses), a BatchGetItem that leaves keys
unprocessed, a response slower than the read timeout, or a connection closed mid-call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

JSON_TYPE = "application/x-amz-json-1.0"
TARGET_PREFIX = "DynamoDB_20120810."


@dataclass(frozen=True, slots=True)
class Throttle:
    """400 ProvisionedThroughputExceededException, as DynamoDB answers a hot partition."""

    code: str = "ProvisionedThroughputExceededException"


@dataclass(frozen=True, slots=True)
class Refuse:
    """400 with a code that says the request itself is wrong (not retried)."""

    code: str = "ValidationException"


@dataclass(frozen=True, slots=True)
class ServerError:
    """500 InternalServerError."""


@dataclass(frozen=True, slots=True)
class Delay:
    """Answer correctly, but only after `seconds`."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Drop:
    """Read the request, then close the connection without a byte of answer."""


@dataclass(frozen=True, slots=True)
class Lose:
    """Pass the request on (DynamoDB does it), then close the connection before the answer:
    the write happened, but the client cannot know, and retries."""


@dataclass(frozen=True, slots=True)
class ApplyThenFail:
    """Pass the request on (DynamoDB applies it), then answer 500 InternalServerError: the
    write happened, but the client is told it failed, and retries."""


@dataclass(frozen=True, slots=True)
class ApplyThenHang:
    """Pass the request on (DynamoDB applies it), then answer nothing, the connection left
    open until the proxy stops: the caller waits on an answer that never comes, so it can
    be killed between the commit and the answer (`FaultProxy.applied` counts the commits
    passed on)."""


@dataclass(frozen=True, slots=True)
class Unprocess:
    """BatchGetItem: pass only the first `keep` keys of each table on; answer the rest as
    UnprocessedKeys (DynamoDB does this when a call exceeds its capacity or size limit)."""

    keep: int = 0


@dataclass(frozen=True, slots=True)
class Hold:
    """BatchGetItem: pass on every key but those of the partition `key` (a partition key
    value), which are answered as UnprocessedKeys: DynamoDB's answer for a hot partition,
    while the call's other keys are served."""

    key: str


Fault = (
    Throttle
    | Refuse
    | ServerError
    | Delay
    | Drop
    | Lose
    | ApplyThenFail
    | ApplyThenHang
    | Unprocess
    | Hold
)


def names_partition(key: str) -> Callable[[dict[str, Any]], bool]:
    """A Query body whose key condition's values name the partition key value `key`."""
    wire = {"S": key}
    return lambda body: wire in body.get("ExpressionAttributeValues", {}).values()


def touches_partition(key: str) -> Callable[[dict[str, Any]], bool]:
    """A BatchGetItem body with a key in the partition `key` (any table)."""
    wire = {"S": key}

    def touches(body: dict[str, Any]) -> bool:
        return any(
            wire in item_key.values()
            for request in body.get("RequestItems", {}).values()
            for item_key in request["Keys"]
        )

    return touches


@dataclass(slots=True)
class Rule:
    operation: str
    fault: Fault
    times: int
    when: Callable[[dict[str, Any]], bool] | None = None
    used: int = 0

    def matches(self, operation: str, body: dict[str, Any]) -> bool:
        if self.used >= self.times or operation != self.operation:
            return False
        return self.when is None or self.when(body)


@dataclass
class FaultProxy:
    upstream: str
    rules: list[Rule] = field(default_factory=list)
    #: Requests received, by operation (every HTTP attempt, retries included).
    received: Counter[str] = field(default_factory=Counter)
    #: Faults injected, by operation.
    injected: Counter[str] = field(default_factory=Counter)
    #: Answers written, by operation (a Delay's only once its time is up).
    answered: Counter[str] = field(default_factory=Counter)
    #: Requests an ApplyThenHang passed on and DynamoDB answered, by operation.
    applied: Counter[str] = field(default_factory=Counter)
    _server: asyncio.Server | None = None
    _session: aiohttp.ClientSession | None = None
    _handlers: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> None:
        self._session = aiohttp.ClientSession()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            # A handler may be asleep in a Delay whose client has long given up.
            for handler in list(self._handlers):
                handler.cancel()
            await asyncio.gather(*self._handlers, return_exceptions=True)
            await self._server.wait_closed()
        if self._session is not None:
            await self._session.close()

    @property
    def endpoint_url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def inject(
        self,
        operation: str,
        fault: Fault,
        *,
        times: int = 1,
        when: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        """Make the next `times` requests of `operation` (e.g. "BatchGetItem") whose JSON
        body satisfies `when` fail with `fault`. Rules apply in the order injected."""
        self.rules.append(Rule(operation, fault, times, when))

    def hot_partition(self, key: str, *, times: int = 10_000, batch_get: bool = True) -> None:
        """Throttle the next `times` Queries whose key condition names the partition key
        value `key` (past any retry budget by default), as DynamoDB throttles a hot
        partition; with `batch_get`, BatchGetItem calls touching it serve their other keys
        and leave that partition's in UnprocessedKeys."""
        self.inject("Query", Throttle(), times=times, when=names_partition(key))
        if batch_get:
            self.inject("BatchGetItem", Hold(key), times=times, when=touches_partition(key))

    def reset(self) -> None:
        self.rules.clear()
        self.received.clear()
        self.injected.clear()
        self.answered.clear()
        self.applied.clear()

    # --- the HTTP side ----------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        self._handlers.add(handler)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    return
                headers, body = request
                if not await self._answer(headers, body, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        except asyncio.CancelledError:
            # stop() cancels a handler still serving (or asleep in a Delay): it ends here,
            # as the server shuts down.
            return
        finally:
            self._handlers.discard(handler)
            writer.close()

    async def _answer(
        self, headers: dict[str, str], body: bytes, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer one request; False when the connection is to be dropped."""
        operation = headers.get("x-amz-target", "").removeprefix(TARGET_PREFIX)
        payload: dict[str, Any] = json.loads(body) if body else {}
        self.received[operation] += 1
        rule = next((r for r in self.rules if r.matches(operation, payload)), None)
        fault = None
        if rule is not None:
            rule.used += 1
            fault = rule.fault
            self.injected[operation] += 1
        if isinstance(fault, Drop):
            return False
        if isinstance(fault, Lose):
            await self._forward(headers, body)
            return False
        if isinstance(fault, ApplyThenFail):
            await self._forward(headers, body)
            fault = ServerError()
        if isinstance(fault, ApplyThenHang):
            status, _ = await self._forward(headers, body)
            if status == 200:
                self.applied[operation] += 1
            await asyncio.Event().wait()  # until stop() cancels this handler
        if isinstance(fault, Throttle):
            _write(writer, 400, _error_body(fault.code, "Throughput exceeds the limit"))
        elif isinstance(fault, Refuse):
            _write(
                writer, 400, _error_body(fault.code, "One or more parameter values were invalid")
            )
        elif isinstance(fault, ServerError):
            _write(writer, 500, _error_body("InternalServerError", "Internal server error"))
        elif isinstance(fault, Unprocess):
            status, answer = await self._unprocess(headers, payload, _first(fault.keep))
            _write(writer, status, answer)
        elif isinstance(fault, Hold):
            status, answer = await self._unprocess(headers, payload, _other_than(fault.key))
            _write(writer, status, answer)
        else:
            if isinstance(fault, Delay):
                await asyncio.sleep(fault.seconds)
            status, answer = await self._forward(headers, body)
            _write(writer, status, answer)
        await writer.drain()
        self.answered[operation] += 1
        return True

    async def _forward(self, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
        assert self._session is not None
        passed = {k: v for k, v in headers.items() if k not in {"host", "content-length"}}
        async with self._session.post(self.upstream + "/", data=body, headers=passed) as reply:
            return reply.status, await reply.read()

    async def _unprocess(
        self, headers: dict[str, str], payload: dict[str, Any], passes: KeyFilter
    ) -> tuple[int, bytes]:
        sent: dict[str, Any] = {}
        held: dict[str, Any] = {}
        for table, request in payload["RequestItems"].items():
            passed, kept_back = passes(request["Keys"])
            if passed:
                sent[table] = {**request, "Keys": passed}
            if kept_back:
                held[table] = {**request, "Keys": kept_back}
        answer: dict[str, Any] = {"Responses": {}}
        if sent:
            body = json.dumps({**payload, "RequestItems": sent}).encode()
            status, raw = await self._forward(headers, body)
            if status != 200:
                return status, raw
            answer = json.loads(raw)
        answer["UnprocessedKeys"] = held
        return 200, json.dumps(answer).encode()


#: Splits one table's BatchGetItem keys into those passed on and those held back.
KeyFilter = Callable[[list[dict[str, Any]]], tuple[list[dict[str, Any]], list[dict[str, Any]]]]


def _first(keep: int) -> KeyFilter:
    return lambda keys: (keys[:keep], keys[keep:])


def _other_than(partition: str) -> KeyFilter:
    wire = {"S": partition}

    def split(keys: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return [k for k in keys if wire not in k.values()], [k for k in keys if wire in k.values()]

    return split


async def _read_request(reader: asyncio.StreamReader) -> tuple[dict[str, str], bytes] | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return headers, body


def _error_body(code: str, message: str) -> bytes:
    return json.dumps(
        {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message}
    ).encode()


def _write(writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
    # No x-amz-crc32: a rewritten body would fail botocore's checksum check.
    reason = {200: "OK", 400: "Bad Request", 500: "Internal Server Error"}.get(status, "Status")
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        f"Content-Type: {JSON_TYPE}\r\n"
        # As DynamoDB does: botocore reads it into ResponseMetadata.RequestId.
        f"x-amzn-RequestId: {uuid.uuid4().hex.upper()}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: keep-alive\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + body)


@contextlib.asynccontextmanager
async def fault_proxy(upstream: str) -> Any:
    proxy = FaultProxy(upstream)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.stop()
