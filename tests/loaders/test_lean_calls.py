"""The lean call path (loaders/wire/) against botocore's: the same request on the wire
(target, JSON body), a SigV4 signature botocore's own signer reproduces, the same answers
from both DynamoDB implementations, and botocore's retries and error codes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from aiohttp import web
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from gateway.configuration.fields import SettingsError
from gateway.configuration.parsers import call_path_choice
from gateway.settings import Settings
from loaders import entities as e
from loaders.dynamodb import BOTOCORE, LEAN, Dynamo, DynamoDBFailure
from loaders.errors import DynamoDBUnavailable
from loaders.tables import TableNames
from loaders.wire.client import LeanClient
from loaders.wire.signer import Signer, SigningCredentials
from support.seed import seed_users
from tests.conftest import open_test_client
from tests.loaders.test_wire_connections import no_pause

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

#: A fixed clock: 2026-12-02T11:31:28Z, the suite's "now".
FIXED = datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)
USER = "lean-user"
JSON_TYPE = "application/x-amz-json-1.0"


@dataclass
class Captured:
    """What a stub DynamoDB on 127.0.0.1 received, and what it answers next."""

    requests: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    #: (status, body) answers to give, in order; then `{}` with 200.
    answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
async def stub() -> AsyncIterator[Captured]:
    captured = Captured()

    async def handle(request: web.Request) -> web.Response:
        captured.requests.append((dict(request.headers), await request.read()))
        status, body = captured.answers.pop(0) if captured.answers else (200, {})
        return web.Response(
            status=status,
            body=json.dumps(body).encode(),
            headers={"Content-Type": JSON_TYPE, "x-amzn-RequestId": "STUBREQUEST"},
        )

    app = web.Application()
    app.router.add_post("/", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    captured.url = f"http://127.0.0.1:{port}"
    yield captured
    await runner.cleanup()


def read_calls(tables: TableNames) -> list[tuple[str, dict[str, Any]]]:
    """Every shape of read call the read path sends (loaders/dynamodb.py)."""
    recurring = e.RECURRING_EXPENSE.query(user_id=USER)
    partition, sort = recurring.table.key_names
    point = e.PAYDAY.key(user_id=USER)
    return [
        ("get_item", {"TableName": tables.name(point.table), "Key": point.attributes()}),
        (
            "get_item",
            {"TableName": "lock", "Key": {"key": {"S": "k"}}, "ConsistentRead": True},
        ),
        (
            "batch_get_item",
            {
                "RequestItems": {
                    tables.name(key.table): {"Keys": [key.attributes()], "ConsistentRead": True}
                    for key in (e.PAYDAY.key(user_id=USER), e.ALERT.key(user_id=USER))
                },
                "ReturnConsumedCapacity": "TOTAL",
            },
        ),
        (
            "query",
            {
                "TableName": tables.name(recurring.table),
                "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
                "ExpressionAttributeNames": {"#pk": partition, "#sk": sort},
                "ExpressionAttributeValues": {
                    ":pk": {"S": recurring.pk},
                    ":prefix": {"S": recurring.sk_prefix or "é"},
                },
                "ScanIndexForward": False,
                "ReturnConsumedCapacity": "TOTAL",
                "Limit": 7,
                "ExclusiveStartKey": {partition: {"S": recurring.pk}, sort: {"S": "ü#1"}},
            },
        ),
    ]


def botocore_signature(
    headers: dict[str, str], body: bytes, url: str, credentials: Credentials, now: datetime
) -> str:
    """The Authorization botocore's SigV4Auth gives this request at `now`."""
    request = AWSRequest(
        method="POST",
        url=url,
        headers={name: headers[name] for name in ("Content-Type", "X-Amz-Target")},
        data=body,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("botocore.auth.get_current_datetime", lambda: now.replace(tzinfo=None))
        SigV4Auth(credentials, "dynamodb", "us-east-1").add_auth(request)
    return str(request.headers["Authorization"])


async def test_the_lean_request_is_botocores_target_and_body_signed_as_botocore_signs(
    stub: Captured,
) -> None:
    tables = TableNames()
    async with open_test_client(stub.url) as client:
        botocore = Dynamo(client, tables, call_path=BOTOCORE)
        lean = Dynamo(client, tables, call_path=LEAN)
        assert lean._lean is not None
        lean._lean = LeanClient(client, clock=lambda: FIXED)
        for operation, params in read_calls(tables):
            await botocore.call(operation, **params)
            await lean.call(operation, **params)
        credentials = await client._request_signer._credentials.get_frozen_credentials()  # type: ignore[attr-defined]
    sent = stub.requests
    assert len(sent) == 2 * len(read_calls(tables))
    for (by_botocore, botocore_body), (by_lean, lean_body) in zip(
        sent[::2], sent[1::2], strict=True
    ):
        assert by_lean["X-Amz-Target"] == by_botocore["X-Amz-Target"]
        assert by_lean["Content-Type"] == by_botocore["Content-Type"] == JSON_TYPE
        assert orjson.loads(lean_body) == json.loads(botocore_body)
        assert by_lean["X-Amz-Date"] == "20261202T113128Z"
        reference = botocore_signature(
            by_lean,
            lean_body,
            stub.url,
            Credentials(credentials.access_key, credentials.secret_key, credentials.token),
            FIXED,
        )
        assert by_lean["Authorization"] == reference
    targets = [headers["X-Amz-Target"] for headers, _ in sent[1::2]]
    assert targets == [
        "DynamoDB_20120810.GetItem",
        "DynamoDB_20120810.GetItem",
        "DynamoDB_20120810.BatchGetItem",
        "DynamoDB_20120810.Query",
    ]


@pytest.mark.parametrize("token", [None, "session-token/with+odd=chars"])
def test_the_signer_matches_botocore_across_days_and_session_tokens(token: str | None) -> None:
    signer = Signer("us-east-1", "dynamodb.us-east-1.amazonaws.com")
    url = "https://dynamodb.us-east-1.amazonaws.com"
    body = b'{"TableName":"t","Key":{"pk":{"S":"a"}}}'
    days = (FIXED.replace(year=2027, month=1, day=5, hour=3, minute=4, second=5), FIXED)
    for now in (*days, FIXED.replace(day=3, hour=0, minute=0, second=1)):
        credentials = SigningCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG", token)
        headers = signer.headers("DynamoDB_20120810.GetItem", body, credentials, now)
        reference = botocore_signature(
            headers, body, url, Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG", token), now
        )
        assert headers["Authorization"] == reference
        assert headers.get("X-Amz-Security-Token") == token
    # The key of the last day is the one kept.
    assert signer._key is not None
    assert signer._key.day == "20261203"


async def test_throttling_is_retried_with_botocores_attempts_and_codes_are_kept(
    stub: Captured,
) -> None:
    tables = TableNames()
    throttled = (
        400,
        {"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"},
    )
    refused = (400, {"__type": "com.amazon.coral.validate#ValidationException", "message": "no"})
    async with open_test_client(stub.url) as client:
        dynamo = Dynamo(client, tables, retry_sleep=no_pause)
        attempts: list[int] = []
        dynamo.observers.append(lambda call: attempts.append(call.attempts))
        get = read_calls(tables)[0][1]
        stub.answers = [throttled, throttled]
        assert (await dynamo.call("get_item", **get))["ResponseMetadata"]["RetryAttempts"] == 2
        stub.answers = [throttled] * 3
        with pytest.raises(DynamoDBUnavailable) as unavailable:
            await dynamo.call("get_item", **get)
        cause: Any = unavailable.value.__cause__
        assert cause.response["Error"]["Code"] == "ProvisionedThroughputExceededException"
        assert cause.response["ResponseMetadata"]["RequestId"] == "STUBREQUEST"
        stub.answers = [refused]
        with pytest.raises(DynamoDBFailure, match="refused the keys of a get_item"):
            await dynamo.call("get_item", **get)
    # total_max_attempts 3 (the test client's config), a refusal never retried.
    assert attempts == [3, 3, 1]
    assert len(stub.requests) == 7


async def test_both_paths_read_the_same_answers(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    seeding = Dynamo(dynamodb, tables, call_path=BOTOCORE)
    await seed_users(seeding, [USER], FIXED, Settings(tables=tables))
    answers: dict[str, list[Any]] = {}
    for path in (BOTOCORE, LEAN):
        dynamo = Dynamo(dynamodb, tables, call_path=path)
        responses = []
        for operation, params in read_calls(tables):
            if params.get("TableName") == "lock":
                continue
            params = {k: v for k, v in params.items() if k != "ExclusiveStartKey"}
            response = await dynamo.call(operation, **params)
            response.pop("ResponseMetadata")
            responses.append(response)
        answers[path] = responses
    assert answers[LEAN] == answers[BOTOCORE]
    assert any(answer.get("Items") for answer in answers[LEAN])


def test_a_wrapped_client_keeps_the_botocore_path() -> None:
    class Wrapper:
        def __getattr__(self, name: str) -> Callable[..., Any]:
            raise AttributeError(name)

    assert not LeanClient.serves(Wrapper())


def test_the_setting_names_the_two_paths() -> None:
    assert call_path_choice("INSIGHT_DYNAMODB_CALL_PATH", "LEAN") == LEAN
    assert call_path_choice("INSIGHT_DYNAMODB_CALL_PATH", "botocore") == BOTOCORE
    with pytest.raises(SettingsError, match="INSIGHT_DYNAMODB_CALL_PATH must be lean, botocore"):
        call_path_choice("INSIGHT_DYNAMODB_CALL_PATH", "aiodynamo")
