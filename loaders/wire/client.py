"""`LeanClient`: DynamoDB's read calls (GetItem, BatchGetItem, Query) without botocore's
request pipeline, on everything the botocore client already has.

The process's aioboto3 client stays the one configuration: its credentials (frozen, and
refreshed by botocore when they expire), endpoint, region, user agent, pool size, timeouts,
keep-alive and TLS settings (loaders/wire/endpoint.py), and its retry budget (the same
total attempts). What is left out is what costs the CPU: the operation model walk that
serialises and parses, a dozen event hooks a call, a signer that re-derives its key each
call, botocore's response object, and aiohttp: the requests go on connections of the lean
path's own (loaders/wire/pool.py), parsed by httptools (docs/performance.md). The body is
orjson; attribute values are handed over as they came (`loaders.wire.blobs`, blobs
decoded as botocore does).

Errors keep their codes: an error answer is raised as botocore's own `ClientError` (the
code from `__type`, the status, the request id), a network failure as botocore's exception
for it (as aiobotocore raises them), so `Dynamo.call` classifies them as it always has.
Retries follow botocore's standard mode (the same retryable codes, statuses and network
errors, the same retry quota); the pause is `loaders.backoff.Backoff`'s.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import orjson
from aiobotocore.client import AioBaseClient
from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

from loaders.backoff import Backoff
from loaders.wire.blobs import decode_blobs, may_hold_blobs
from loaders.wire.connection import Answer
from loaders.wire.endpoint import pool_for, reachable_directly
from loaders.wire.pool import ConnectionPool
from loaders.wire.retries import RetryQuota, is_retryable
from loaders.wire.signer import Signer, SigningCredentials, host_of
from loaders.wire.spans import NO_SPAN, CallSpan, call_span, recording

__all__ = ["OPERATIONS", "LeanClient"]

TARGET_PREFIX = "DynamoDB_20120810."
REQUEST_ID = b"x-amzn-requestid"
#: The operations the lean path sends (client method name -> DynamoDB's name).
OPERATIONS = {"get_item": "GetItem", "batch_get_item": "BatchGetItem", "query": "Query"}
#: botocore's standard mode when the config names no attempts.
DEFAULT_MAX_ATTEMPTS = 3

Clock = Callable[[], datetime]


def _blob_out(value: object) -> str:
    # botocore sends a blob (bytes) base64-encoded; orjson asks for what it cannot write.
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode(params: Mapping[str, Any]) -> bytes:
    """A request's JSON body: the parameters as they are (DynamoDB's JSON is the client's)."""
    return orjson.dumps(params, default=_blob_out)


def check_attribute_values(params: Mapping[str, Any]) -> None:
    """Raise AttributeError, as botocore's serialiser does, when a key or expression value is
    not in DynamoDB's wire form (`{"S": ...}`): such a call is never sent, and `Dynamo.call`
    names the parameter with botocore's own validator."""
    maps = [params.get("Key"), params.get("ExclusiveStartKey")]
    maps.append(params.get("ExpressionAttributeValues"))
    for table in (params.get("RequestItems") or {}).values():
        maps += table.get("Keys", [])
    for attributes in maps:
        for value in (attributes or {}).values():
            if not isinstance(value, dict):
                raise AttributeError(f"an attribute value must be a map, not {value!r}")


def max_attempts_of(config: Any) -> int:
    """Total attempts from a botocore Config's `retries`, as botocore reads it."""
    retries: Mapping[str, Any] = getattr(config, "retries", None) or {}
    if "total_max_attempts" in retries:
        return int(retries["total_max_attempts"])
    if "max_attempts" in retries:
        return int(retries["max_attempts"]) + 1
    return DEFAULT_MAX_ATTEMPTS


class LeanClient:
    """Sends the read operations of `OPERATIONS` for one aiobotocore DynamoDB client."""

    def __init__(self, client: Any, backoff: Backoff, *, clock: Clock | None = None):
        self._client = client
        self._backoff = backoff
        self._clock: Clock = clock or (lambda: datetime.now(UTC))
        self.endpoint_url: str = client.meta.endpoint_url
        self.max_attempts = max_attempts_of(client.meta.config)
        # botocore sets every option on its Config, but its stubs do not declare them.
        agent: str | None = getattr(client.meta.config, "user_agent", None)
        self.user_agent = agent or "insight-gateway"
        self.signer = Signer(client.meta.region_name, host_of(self.endpoint_url))
        self._quota = RetryQuota()
        self._events: Any = client.meta.events
        # The client's pool, kept (a weak-keyed lookup an attempt otherwise); fetched again
        # once closed.
        self._pool: ConnectionPool | None = None
        # Each request's fixed head: the request line and the headers no call changes.
        self._head = f"POST / HTTP/1.1\r\nUser-Agent: {self.user_agent}\r\n" + (
            "Accept-Encoding: identity\r\n"  # as aiobotocore sends it (botocore issue 1255)
        )
        if "\r" in self.user_agent or "\n" in self.user_agent:
            raise ValueError(f"a user agent of one line, not {self.user_agent!r}")

    @staticmethod
    def serves(client: object) -> bool:
        """Whether `client` is an aiobotocore client itself, reaching its endpoint without a
        proxy (a wrapper around one, as some tests use, keeps the botocore path and whatever
        the wrapper does; so does a proxied endpoint)."""
        return isinstance(client, AioBaseClient) and reachable_directly(client)

    async def credentials(self) -> SigningCredentials:
        """The client's credentials, frozen (botocore refreshes them when they expire)."""
        source: Any = self._client._request_signer._credentials
        frozen = await source.get_frozen_credentials()
        return SigningCredentials(frozen.access_key, frozen.secret_key, frozen.token)

    async def send(self, operation: str, params: Mapping[str, Any], attempts: list[int]) -> Any:
        """One operation, retried as botocore's standard mode retries it; `attempts[0]` is
        counted up once an attempt (as botocore's request-created event counts them)."""
        name = OPERATIONS[operation]
        check_attribute_values(params)
        # botocore's first event, which observers of the client hook (call counters, tests
        # that hold a call): emitted as botocore emits it, the parameters as given.
        await self._events.emit(
            f"before-parameter-build.dynamodb.{name}",
            params=params,
            model=self._client.meta.service_model.operation_model(name),
            context={},
        )
        if not recording():
            return await self._send(name, encode(params), attempts, NO_SPAN)
        with call_span(name, self.signer.region) as span:
            return await self._send(name, encode(params), attempts, span)

    async def _send(self, name: str, body: bytes, attempts: list[int], span: CallSpan) -> Any:
        target = TARGET_PREFIX + name
        attempt = 0
        taken = 0
        while True:
            attempt += 1
            attempts[0] += 1
            try:
                answer = await self._attempt(target, body)
            except (ConnectionError, HTTPClientError) as error:
                failure: Exception = error
                code: str | None = None
                status = 0
            else:
                status = answer.status
                if span is not NO_SPAN:
                    span.answered(status, answer.header(REQUEST_ID), attempt - 1)
                if status == 200:
                    self._quota.release(taken)
                    return self._parsed(answer, attempt)
                error_answer = self._client_error(name, answer, attempt)
                failure, code = error_answer, error_answer.response["Error"]["Code"]
            if attempt >= self.max_attempts or not is_retryable(code, status, failure):
                raise failure
            taken = self._quota.acquire(failure)
            if not taken:
                raise failure
            await asyncio.sleep(self._backoff.pause(attempt - 1))

    def request(self, target: str, body: bytes, credentials: SigningCredentials) -> bytes:
        """One whole HTTP/1.1 request, signed now: what an attempt writes."""
        headers = self.signer.headers(target, body, credentials, self._clock())
        fields = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        return f"{self._head}{fields}Content-Length: {len(body)}\r\n\r\n".encode() + body

    async def _attempt(self, target: str, body: bytes) -> Answer:
        request = self.request(target, body, await self.credentials())
        pool = self._pool
        if pool is None or pool.closed:
            pool = self._pool = pool_for(self._client)
        return await pool.exchange(request)

    @staticmethod
    def _parsed(answer: Answer, attempt: int) -> Any:
        raw = answer.body
        parsed: dict[str, Any] = orjson.loads(raw) if raw else {}
        if may_hold_blobs(raw):
            decode_blobs(parsed)
        parsed["ResponseMetadata"] = {
            "RequestId": answer.header(REQUEST_ID),
            "HTTPStatusCode": 200,
            "RetryAttempts": attempt - 1,
        }
        return parsed

    @staticmethod
    def _client_error(name: str, answer: Answer, attempt: int) -> ClientError:
        """An error answer as botocore's JSON parser gives it, raised as its ClientError."""
        try:
            body: dict[str, Any] = orjson.loads(answer.body) if answer.body else {}
        except orjson.JSONDecodeError:
            body = {}
        kind = str(body.get("__type") or answer.header(b"x-amzn-errortype"))
        code = kind.rsplit("#", 1)[-1].split(":", 1)[0] if kind else str(answer.status)
        message = body.get("message", body.get("Message", ""))
        response: dict[str, Any] = {
            key: value for key, value in body.items() if key not in ("__type", "message", "Message")
        }
        response["Error"] = {"Message": message, "Code": code}
        response["ResponseMetadata"] = {
            "RequestId": answer.header(REQUEST_ID),
            "HTTPStatusCode": answer.status,
            "HTTPHeaders": answer.headers,
            "RetryAttempts": attempt - 1,
        }
        return ClientError(response, name)  # type: ignore[arg-type]
