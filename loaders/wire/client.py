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

Errors keep their codes: an error answer is raised as the modelled exception class
botocore's error factory makes for it (a `ClientError`: the code from `__type`, the
status, the request id), a network failure as botocore's exception for it (as aiobotocore
raises them), so `Dynamo.call` classifies them as it always has. Retries follow botocore's
standard mode by asking the client's own retry handler, through the events botocore's
endpoint emits: `needs-retry` after a failed attempt (the handler's checks decide: the
retryable codes, statuses and network errors, a body failing its `x-amz-crc32`, the total
attempts, and the client's retry quota, which the botocore path's calls draw from too) and
`after-call` after an answer (a success gives the quota back). The pause is that of
botocore's `ExponentialBackoff` (up to 1 s, then 2, 4... capped at 20), drawn here so that a
test can give its randomness. Credentials are fetched before each attempt, outside the
retries: a credential source's outage is one DYNAMODB_UNAVAILABLE, no quota spent.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

import orjson
from aiobotocore.client import AioBaseClient
from aiobotocore.session import AioSession
from botocore.exceptions import (
    BotoCoreError,
    ChecksumError,
    ClientError,
    ConnectionError,
    HTTPClientError,
    NoCredentialsError,
)
from botocore.hooks import first_non_none_response
from botocore.retries.standard import ExponentialBackoff

if TYPE_CHECKING:
    from botocore.retries.standard import RetryContext

from loaders.wire.blobs import decode_blobs, may_hold_blobs
from loaders.wire.connection import Answer
from loaders.wire.endpoint import WireSettings, close_with
from loaders.wire.pool import ConnectionPool
from loaders.wire.signer import Signer, SigningCredentials, host_of
from loaders.wire.spans import NO_SPAN, CallSpan, call_span, recording

__all__ = ["OPERATIONS", "LeanClient", "UnreadableAnswer"]

TARGET_PREFIX = "DynamoDB_20120810."
REQUEST_ID = b"x-amzn-requestid"
CRC32 = b"x-amz-crc32"
#: The characters botocore leaves unquoted in a Lambda trace id.
TRACE_ID_SAFE = "-=;:+&[]{}\"',"
#: The operations the lean path sends (client method name -> DynamoDB's name).
OPERATIONS = {"get_item": "GetItem", "batch_get_item": "BatchGetItem", "query": "Query"}

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


@dataclass(frozen=True, slots=True)
class _Attempt:
    """What botocore's `ExponentialBackoff.delay_amount` reads of a retry context."""

    attempt_number: int


class HttpAnswer:
    """An answer as botocore's retry handler and quota read aiobotocore's response: its
    `status_code`, `headers` and awaitable `content` (the CRC32 check reads it)."""

    __slots__ = ("answer",)

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    @property
    def status_code(self) -> int:
        return self.answer.status

    @property
    def headers(self) -> dict[str, str]:
        return self.answer.headers

    @property
    def content(self) -> Awaitable[bytes]:
        return _ready(self.answer.body)


async def _ready(body: bytes) -> bytes:
    return body


def crc32_mismatch(answer: Answer) -> ChecksumError | None:
    """botocore's DynamoDB check: a body whose CRC32 differs from its `x-amz-crc32`."""
    expected = answer.header(CRC32)
    if not expected:
        return None
    actual = zlib.crc32(answer.body) & 0xFFFFFFFF
    if expected.isdigit() and actual == int(expected):
        return None
    return ChecksumError(
        checksum_type="crc32", expected_checksum=expected, actual_checksum=str(actual)
    )


def recursion_header() -> str:
    """botocore's `add_recursion_detection_header`: in a Lambda function, the function's
    trace id as `X-Amzn-Trace-Id`."""
    trace_id = os.environ.get("_X_AMZN_TRACE_ID")
    if not trace_id or "AWS_LAMBDA_FUNCTION_NAME" not in os.environ:
        return ""
    return f"X-Amzn-Trace-Id: {quote(trace_id, safe=TRACE_ID_SAFE)}\r\n"


class UnreadableAnswer(BotoCoreError):
    """A 200 answer whose body is not JSON (a proxy's page, a cut body): not DynamoDB's."""

    fmt = "DynamoDB answered {operation} with a body that is not JSON: {error}"


#: The pause between two attempts; `asyncio.sleep`, or a test's recorder.
Sleep = Callable[[float], Awaitable[None]]


class LeanClient:
    """Sends the read operations of `OPERATIONS` beside one aiobotocore DynamoDB client (its
    events are emitted, its modelled exceptions raised, its closing closes the pools).

    `wire`: the configuration, the values the client was built with (None: read from the
    client's public `meta`). `credentials`: botocore's credentials object (the session's
    public `get_credentials()`), refreshed by botocore; None: the default chain's. `sleep`
    and `random` make the retries' pauses (botocore's `ExponentialBackoff`) testable."""

    def __init__(
        self,
        client: Any,
        wire: WireSettings | None = None,
        *,
        credentials: Any | None = None,
        clock: Clock | None = None,
        sleep: Sleep = asyncio.sleep,
        random: Callable[[], float] = random.random,
    ):
        self._client = client
        self.wire = wire = wire or WireSettings.of_client(client)
        self._credential_source = credentials
        self._clock: Clock = clock or (lambda: datetime.now(UTC))
        self._sleep = sleep
        self._backoff = ExponentialBackoff(random=random)
        self.endpoint_url = wire.endpoint_url
        self.user_agent = wire.user_agent
        self.signer = Signer(wire.region, host_of(self.endpoint_url))
        # By endpoint URL (one, unless account-ID endpoints make it the credentials').
        self._signers = {self.endpoint_url: self.signer}
        self._pools: dict[str, ConnectionPool] = {}
        self._events: Any = client.meta.events
        # Each request's fixed head: the request line and the headers no call changes.
        self._head = f"POST / HTTP/1.1\r\nUser-Agent: {self.user_agent}\r\n" + (
            "Accept-Encoding: identity\r\n"  # as aiobotocore sends it (botocore issue 1255)
        )
        if "\r" in self.user_agent or "\n" in self.user_agent:
            raise ValueError(f"a user agent of one line, not {self.user_agent!r}")

    @staticmethod
    def serves(client: object) -> bool:
        """Whether `client` is an aiobotocore client itself (a wrapper around one, as some
        tests use, keeps the botocore path and whatever the wrapper does)."""
        return isinstance(client, AioBaseClient)

    async def credentials(self) -> SigningCredentials:
        """The credentials, frozen (botocore refreshes them when they expire): the ones
        given, else the default chain's (botocore's public `get_credentials()`). None found
        is botocore's `NoCredentialsError`; a source that fails raises its own error:
        either way before any attempt, so nothing is retried and no retry quota is spent."""
        source: Any = self._credential_source
        if source is None:
            source = self._credential_source = await AioSession().get_credentials()
        if source is None:
            raise NoCredentialsError()
        frozen = await source.get_frozen_credentials()
        if frozen is None or not frozen.access_key:
            raise NoCredentialsError()
        account: str | None = getattr(frozen, "account_id", None)
        return SigningCredentials(frozen.access_key, frozen.secret_key, frozen.token, account)

    def pool(self, url: str) -> ConnectionPool:
        """The connections to `url`, made on its first call and closed with the client."""
        pool = self._pools.get(url)
        if pool is None or pool.closed:
            pool = self._pools[url] = self.wire.pool(url)
            close_with(self._client, pool)
        return pool

    async def send(self, operation: str, params: Mapping[str, Any], attempts: list[int]) -> Any:
        """One operation, retried as botocore's standard mode retries it; `attempts[0]` is
        counted up once an attempt (as botocore's request-created event counts them)."""
        name = OPERATIONS[operation]
        check_attribute_values(params)
        model = self._client.meta.service_model.operation_model(name)
        # botocore's first event, which observers of the client hook (call counters, tests
        # that hold a call): emitted as botocore emits it, the parameters as given.
        await self._events.emit(
            f"before-parameter-build.dynamodb.{name}", params=params, model=model, context={}
        )
        if not recording():
            return await self._send(model, encode(params), attempts, NO_SPAN)
        tables = [params["TableName"]] if "TableName" in params else list(params["RequestItems"])
        with call_span(name, self.signer.region, tables) as span:
            return await self._send(model, encode(params), attempts, span)

    async def _send(self, model: Any, body: bytes, attempts: list[int], span: CallSpan) -> Any:
        name = model.name
        target = TARGET_PREFIX + name
        # The call's context, as botocore's: the retry quota notes in it what a retry took.
        context: dict[str, Any] = {}
        attempt = 0
        while True:
            attempt += 1
            credentials = await self.credentials()
            attempts[0] += 1
            try:
                answer = await self._attempt(target, body, credentials, span)
            except (ConnectionError, HTTPClientError) as error:
                failure: Exception = error
                response: tuple[HttpAnswer, dict[str, Any]] | None = None
            else:
                if span is not NO_SPAN:
                    span.answered(answer.status, answer.header(REQUEST_ID), attempt - 1)
                if answer.status == 200:
                    mismatch = crc32_mismatch(answer)
                    if mismatch is None:
                        parsed = self._parsed(name, answer, attempt)
                        # botocore's after-call: the retry quota gets back what was taken.
                        await self._events.emit(
                            f"after-call.dynamodb.{name}",
                            http_response=HttpAnswer(answer),
                            parsed=parsed,
                            model=model,
                            context=context,
                        )
                        return parsed
                    # botocore retries a body whose CRC32 is not the header's (its
                    # RetryDDBChecksumError); past the attempts it is refused, never served.
                    failure, response = mismatch, (HttpAnswer(answer), {})
                else:
                    error_answer = self._client_error(name, answer, attempt)
                    failure = error_answer
                    # What the handler reads (the code), in a dict of its own: the retry
                    # metadata it notes there stays out of the raised error's response.
                    response = (HttpAnswer(answer), {"Error": error_answer.response["Error"]})
            # botocore's endpoint's question to the client's retry handler: retried when it
            # answers a pause, which it does only once the quota has given the retry.
            retry = first_non_none_response(
                await self._events.emit(
                    f"needs-retry.dynamodb.{name}",
                    response=response,
                    endpoint=None,
                    operation=model,
                    attempts=attempt,
                    caught_exception=None if response else failure,
                    request_dict={"context": context},
                )
            )
            if retry is None:
                raise failure
            # botocore's standard mode: random() * min(2 ** (attempt - 1), 20) seconds.
            await self._sleep(self._backoff.delay_amount(cast("RetryContext", _Attempt(attempt))))

    def request(
        self,
        target: str,
        body: bytes,
        credentials: SigningCredentials,
        trace_headers: str = "",
        url: str | None = None,
    ) -> bytes:
        """One whole HTTP/1.1 request to `url` (the endpoint's by default), signed now: what
        an attempt writes (with the span's propagation headers, unsigned, as botocore's
        instrumentation adds them)."""
        signer = self.signer if url is None else self._signer(url)
        headers = signer.headers(target, body, credentials, self._clock())
        fields = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        if "X-Amzn-Trace-Id" not in trace_headers:  # the propagator's wins, as in botocore
            fields += recursion_header()
        fields += trace_headers
        return f"{self._head}{fields}Content-Length: {len(body)}\r\n\r\n".encode() + body

    async def _attempt(
        self, target: str, body: bytes, credentials: SigningCredentials, span: CallSpan
    ) -> Answer:
        url = self.wire.url_for(credentials.account_id)
        request = self.request(target, body, credentials, span.trace_headers(), url)
        return await self.pool(url).exchange(request)

    def _signer(self, url: str) -> Signer:
        signer = self._signers.get(url)
        if signer is None:
            signer = self._signers[url] = Signer(self.wire.region, host_of(url))
        return signer

    @staticmethod
    def _parsed(name: str, answer: Answer, attempt: int) -> Any:
        raw = answer.body
        try:
            parsed: dict[str, Any] = orjson.loads(raw) if raw else {}
        except orjson.JSONDecodeError as error:
            raise UnreadableAnswer(operation=name, error=error) from error
        if not isinstance(parsed, dict):
            raise UnreadableAnswer(operation=name, error=f"a JSON {type(parsed).__name__}")
        if may_hold_blobs(raw):
            decode_blobs(parsed)
        parsed["ResponseMetadata"] = {
            "RequestId": answer.header(REQUEST_ID),
            "HTTPStatusCode": 200,
            "RetryAttempts": attempt - 1,
        }
        return parsed

    def _client_error(self, name: str, answer: Answer, attempt: int) -> ClientError:
        """An error answer as botocore's JSON parser gives it, raised as the modelled
        exception class botocore's error factory makes for its code
        (`client.exceptions.ProvisionedThroughputExceededException`...), else ClientError."""
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
        modelled: type[ClientError] = self._client.exceptions.from_code(code)
        return modelled(response, name)  # type: ignore[arg-type]
