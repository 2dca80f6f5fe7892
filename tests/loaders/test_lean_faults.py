"""The lean path's answers to what botocore handles, over a scripted server on 127.0.0.1:
a body failing its CRC32, sustained throttling, a credential source's outage or absence,
the modelled exception classes, a 200 that is not JSON, the trace headers, and the
account-ID endpoint botocore picks."""

from __future__ import annotations

import asyncio
import zlib
from typing import Any

import botocore.session
import pytest
from botocore.exceptions import ChecksumError, ConnectTimeoutError, NoCredentialsError

from loaders.dynamodb import Dynamo
from loaders.errors import DynamoDBUnavailable
from loaders.tables import TableNames
from loaders.wire.client import LeanClient, UnreadableAnswer
from loaders.wire.endpoint import WireSettings
from loaders.wire.signer import SigningCredentials
from tests.loaders.test_wire_connections import (
    GET,
    OK_BODY,
    Behaviour,
    Script,
    answer,
    client_of,
    scripted,
)

#: GET's key, typed for the botocore client's own `get_item`.
KEY: dict[str, Any] = {"PK": {"S": "USERS#u"}, "SK": {"S": "PAYDAY"}}
THROTTLED = b'{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"}'


def raw(status: int, body: bytes, *headers: bytes) -> Behaviour:
    async def write(writer: asyncio.StreamWriter) -> None:
        head = b"".join(header + b"\r\n" for header in headers)
        writer.write(
            b"HTTP/1.1 %d X\r\nx-amzn-RequestId: REQ\r\n%sContent-Length: %d\r\n\r\n%s"
            % (status, head, len(body), body)
        )
        await writer.drain()

    return write


def with_crc(body: bytes, crc: int) -> Behaviour:
    return raw(200, body, b"x-amz-crc32: %d" % crc)


class Pauses:
    """The lean path's sleep, recorded instead of slept."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def lean_dynamo(client: Any, pauses: Pauses, **options: Any) -> Dynamo:
    return Dynamo(client, TableNames(), retry_sleep=pauses, **options)


async def test_a_body_failing_its_crc32_is_retried_and_then_answered_right() -> None:
    corrupted = OK_BODY.replace(b"PAYDAY", b"PAYDAX")
    right = zlib.crc32(OK_BODY)
    script = Script(behaviours=[with_crc(corrupted, right), with_crc(OK_BODY, right)])
    pauses = Pauses()
    async with scripted(script) as url, client_of(url, attempts=3) as client:
        dynamo = lean_dynamo(client, pauses)
        got = await dynamo.call("get_item", **GET)
        assert got["Item"]["SK"] == {"S": "PAYDAY"}
        assert got["ResponseMetadata"]["RetryAttempts"] == 1
        # Corrupted every time: refused, never served.
        script.behaviours = [with_crc(corrupted, right)] * 3
        with pytest.raises(DynamoDBUnavailable) as unavailable:
            await dynamo.call("get_item", **GET)
    assert isinstance(unavailable.value.__cause__, ChecksumError)
    assert len(script.requests) == 5
    assert len(pauses.seconds) == 3


async def test_sustained_throttling_backs_off_as_botocores_standard_mode() -> None:
    script = Script(behaviours=[raw(400, THROTTLED)] * 7)
    pauses = Pauses()
    async with scripted(script) as url, client_of(url, attempts=7) as client:
        lean = LeanClient(client, sleep=pauses, random=lambda: 1.0)
        with pytest.raises(client.exceptions.ProvisionedThroughputExceededException):
            await lean.send("get_item", GET, [0])
    # random() * min(2 ** (attempt - 1), 20): 1 s, 2, 4, 8, 16, then the 20 s cap.
    assert pauses.seconds == [1.0, 2.0, 4.0, 8.0, 16.0, 20.0]
    assert len(script.requests) == 7


async def test_the_pause_is_jittered_below_botocores_ceiling() -> None:
    script = Script(behaviours=[raw(400, THROTTLED)] * 2)
    pauses = Pauses()
    async with scripted(script) as url, client_of(url, attempts=3) as client:
        lean = LeanClient(client, sleep=pauses, random=iter([0.25, 0.5]).__next__)
        got = await lean.send("get_item", GET, [0])
    assert got["ResponseMetadata"]["RetryAttempts"] == 2
    assert pauses.seconds == [0.25, 1.0]


class Failing:
    """A credential source whose refresh fails (the instance metadata service down)."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.asked = 0

    async def get_frozen_credentials(self) -> Any:
        self.asked += 1
        raise self.error


class Empty:
    async def get_frozen_credentials(self) -> Any:
        return None


async def test_a_credential_outage_is_unavailable_without_spending_the_retry_quota() -> None:
    script = Script()
    pauses = Pauses()
    source = Failing(ConnectTimeoutError(endpoint_url="http://169.254.169.254"))
    asked: list[Any] = []
    async with scripted(script) as url, client_of(url, attempts=3) as client:
        # The retry quota is the client's retry handler's: only a `needs-retry` spends it.
        client.meta.events.register("needs-retry.dynamodb", lambda **kwargs: asked.append(kwargs))
        dynamo = lean_dynamo(client, pauses, credentials=source)
        with pytest.raises(DynamoDBUnavailable) as unavailable:
            await dynamo.call("get_item", **GET)
    assert isinstance(unavailable.value.__cause__, ConnectTimeoutError)
    assert (source.asked, len(script.requests), pauses.seconds, asked) == (1, 0, [], [])


async def test_the_lean_path_spends_the_retry_quota_of_botocores_own_calls() -> None:
    # botocore's standard mode: a bucket of 500 a client, a retry takes 5 and a failed call
    # gives nothing back. The lean path's 100 failed calls of 2 attempts empty it, so its next
    # call is not retried, and neither is the botocore path's call on the same client.
    unavailable = raw(503, b'{"__type":"com.amazonaws.dynamodb.v20120810#ServiceUnavailable"}')
    script = Script()
    script.behaviours = [unavailable] * 203
    pauses = Pauses()
    async with scripted(script) as url, client_of(url, attempts=2) as client:
        dynamo = lean_dynamo(client, pauses)
        for _ in range(100):
            with pytest.raises(DynamoDBUnavailable):
                await dynamo.call("get_item", **GET)
        assert (len(script.requests), len(pauses.seconds)) == (200, 100)
        with pytest.raises(DynamoDBUnavailable):
            await dynamo.call("get_item", **GET)
        assert (len(script.requests), len(pauses.seconds)) == (201, 100)
        with pytest.raises(client.exceptions.ClientError) as botocores:
            await client.get_item(TableName="t", Key=KEY)
    assert len(script.requests) == 202
    metadata: dict[str, Any] = dict(botocores.value.response["ResponseMetadata"])
    assert metadata["RetryQuotaReached"] is True


async def test_a_success_gives_the_quota_back_to_botocores_own_calls() -> None:
    # 99 failed calls take 495 of 500; the next call's retry takes the last 5 and, answered,
    # gives them back: botocore's own call on the same client may retry once (then its
    # attempts, not the quota, end it). Without the give-back it would not be retried.
    unavailable = raw(503, b'{"__type":"com.amazonaws.dynamodb.v20120810#ServiceUnavailable"}')
    script = Script()
    script.behaviours = [unavailable] * 199 + [answer(), unavailable, unavailable]
    async with scripted(script) as url, client_of(url, attempts=2) as client:
        dynamo = lean_dynamo(client, Pauses())
        for _ in range(99):
            with pytest.raises(DynamoDBUnavailable):
                await dynamo.call("get_item", **GET)
        got = await dynamo.call("get_item", **GET)
        assert got["ResponseMetadata"]["RetryAttempts"] == 1
        with pytest.raises(client.exceptions.ClientError) as botocores:
            await client.get_item(TableName="t", Key=KEY)
    assert len(script.requests) == 202
    assert "RetryQuotaReached" not in botocores.value.response["ResponseMetadata"]


async def test_missing_credentials_are_botocores_clear_error() -> None:
    script = Script()
    async with scripted(script) as url, client_of(url) as client:
        dynamo = lean_dynamo(client, Pauses(), credentials=Empty())
        with pytest.raises(DynamoDBUnavailable) as unavailable:
            await dynamo.call("get_item", **GET)
    assert isinstance(unavailable.value.__cause__, NoCredentialsError)
    assert "Unable to locate credentials" in str(unavailable.value.__cause__)
    assert script.requests == []


async def test_error_answers_are_the_modelled_exception_classes() -> None:
    missing = b'{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"}'
    script = Script(behaviours=[raw(400, missing), raw(400, b'{"__type":"Unheard"}')])
    async with scripted(script) as url, client_of(url) as client:
        lean = LeanClient(client, sleep=Pauses())
        with pytest.raises(client.exceptions.ResourceNotFoundException) as modelled:
            await lean.send("get_item", GET, [0])
        assert modelled.value.response["Error"]["Code"] == "ResourceNotFoundException"
        with pytest.raises(client.exceptions.ClientError) as unmodelled:
            await lean.send("get_item", GET, [0])
    assert type(unmodelled.value) is client.exceptions.ClientError


@pytest.mark.parametrize("body", [b"<html>gateway timeout</html>", b"[1, 2]"])
async def test_a_200_that_is_not_json_is_unavailable(body: bytes) -> None:
    script = Script(behaviours=[raw(200, body)])
    async with scripted(script) as url, client_of(url) as client:
        with pytest.raises(DynamoDBUnavailable) as unavailable:
            await lean_dynamo(client, Pauses()).call("get_item", **GET)
    assert isinstance(unavailable.value.__cause__, UnreadableAnswer)


async def test_in_a_lambda_the_trace_id_goes_as_botocore_sends_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "gateway")
    monkeypatch.setenv("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1")
    script = Script()
    async with scripted(script) as url, client_of(url) as client:
        await lean_dynamo(client, Pauses()).call("get_item", **GET)
    assert (
        b"\r\nX-Amzn-Trace-Id: Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1\r\n"
        in (script.requests[0])
    )


def test_with_an_account_the_read_goes_where_botocore_sends_it() -> None:
    account = "123456789012"
    botocores: list[str] = []

    def grab(request: Any, **_: Any) -> None:
        botocores.append(request.url)
        raise StopAsyncIteration  # sent nowhere

    client: Any = botocore.session.get_session().create_client(
        "dynamodb",
        region_name="eu-west-1",
        aws_access_key_id="a",
        aws_secret_access_key="b",
        aws_account_id=account,
    )
    client.meta.events.register("before-send", grab)
    with pytest.raises(StopAsyncIteration):
        client.get_item(**GET)
    wire = WireSettings(client.meta.endpoint_url, "eu-west-1", account_endpoints=True)
    assert wire.url_for(account) + "/" == botocores[0]
    assert wire.url_for(None) == client.meta.endpoint_url
    lean = LeanClient(client, wire)
    request = lean.request(
        "DynamoDB_20120810.GetItem", b"{}", SigningCredentials("a", "b"), url=wire.url_for(account)
    )
    assert b"\r\nHost: 123456789012.ddb.eu-west-1.amazonaws.com\r\n" in request
    assert b"/eu-west-1/dynamodb/aws4_request" in request


async def continue_then_answer(writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    await writer.drain()
    await answer()(writer)


async def until_closed(writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.0 200 OK\r\nx-amzn-RequestId: REQ\r\n\r\n" + OK_BODY)
    await writer.drain()
    writer.close()


@pytest.mark.parametrize("behaviour", [continue_then_answer, until_closed])
async def test_interim_and_close_delimited_answers_are_read(behaviour: Behaviour) -> None:
    script = Script(behaviours=[behaviour, behaviour])
    async with scripted(script) as url, client_of(url) as client:
        dynamo = lean_dynamo(client, Pauses())
        for _ in range(2):
            got = await dynamo.call("get_item", **GET)
            assert got["Item"]["SK"] == {"S": "PAYDAY"}
            assert got["ResponseMetadata"]["RetryAttempts"] == 0
    assert len(script.requests) == 2
