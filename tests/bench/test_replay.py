"""The bench's replaying DynamoDB stand-in records a server's answers, then replays them
byte for byte without asking the server again, and refuses any call it has not recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import aiohttp
import pytest
from botocore.exceptions import ClientError

from bench import processes
from bench.replay import UNRECORDED, call_key
from loaders.tables import TableNames
from tests.conftest import open_test_client

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

GET_ITEM = "DynamoDB_20120810.GetItem"
#: moto routes a request by the service its signature names (its signature is not checked).
AUTHORIZATION = (
    "AWS4-HMAC-SHA256 Credential=testing/20261202/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host;x-amz-target, Signature=0"
)


@pytest.fixture
def replayer(endpoint_url: str) -> Iterator[str]:
    """A recording replayer in front of the tests' moto server."""
    port = processes.free_port()
    with processes.running(processes.replayer(port, endpoint_url), port):
        yield f"http://127.0.0.1:{port}"


def get_item_body(tables: TableNames, user: str) -> dict[str, Any]:
    return {
        "TableName": tables.pave,
        "Key": {"PK": {"S": f"USERS#{user}"}, "SK": {"S": "ALERT"}},
        "ReturnConsumedCapacity": "TOTAL",
    }


async def post(
    http: aiohttp.ClientSession, url: str, body: bytes
) -> tuple[int, dict[str, str], bytes]:
    headers = {
        "X-Amz-Target": GET_ITEM,
        "Content-Type": "application/x-amz-json-1.0",
        "Authorization": AUTHORIZATION,
    }
    async with http.post(url, data=body, headers=headers) as response:
        kept = {name: response.headers.get(name, "") for name in ("content-type", "x-amz-crc32")}
        return response.status, kept, await response.read()


async def put_alert(dynamodb: DynamoDBClient, tables: TableNames, user: str, sent: bool) -> None:
    await dynamodb.put_item(
        TableName=tables.pave,
        Item={"PK": {"S": f"USERS#{user}"}, "SK": {"S": "ALERT"}, "alertSent": {"BOOL": sent}},
    )


async def stats(http: aiohttp.ClientSession, replayer: str, path: str) -> dict[str, Any]:
    async with http.post(f"{replayer}/_replay/{path}") as response:
        document: dict[str, Any] = await response.json()
        return document


async def test_records_then_replays_the_same_bytes_without_the_server(
    dynamodb: DynamoDBClient, tables: TableNames, replayer: str
) -> None:
    await put_alert(dynamodb, tables, "u1", sent=True)
    body = get_item_body(tables, "u1")
    async with aiohttp.ClientSession() as http, open_test_client(replayer) as client:
        recorded = await post(http, replayer, json.dumps(body).encode())
        through = await client.get_item(**body)  # the gateway's own client, recorded too
        assert through["Item"]["alertSent"] == {"BOOL": True}
        assert (await stats(http, replayer, "replay"))["recorded"] == 1  # the same call

        await put_alert(dynamodb, tables, "u1", sent=False)  # the server changes ...
        reordered = json.dumps(dict(reversed(body.items())), indent=1).encode()
        replayed = await post(http, replayer, reordered)
        again = await client.get_item(**body)

        after = await stats(http, replayer, "stats")
    assert recorded[0] == 200
    assert json.loads(recorded[2])["Item"]["alertSent"] == {"BOOL": True}
    assert recorded[1]["x-amz-crc32"]  # botocore checks it: it is replayed too
    assert replayed == recorded  # ... the replay does not: status, headers, body bytes
    assert again["Item"]["alertSent"] == {"BOOL": True}
    assert (after["served"], after["refused"]) == (2, 0)


async def test_refuses_a_call_it_has_not_recorded(
    dynamodb: DynamoDBClient, tables: TableNames, replayer: str
) -> None:
    await put_alert(dynamodb, tables, "u1", sent=True)
    await put_alert(dynamodb, tables, "u2", sent=True)
    async with aiohttp.ClientSession() as http, open_test_client(replayer) as client:
        await client.get_item(**get_item_body(tables, "u1"))
        await stats(http, replayer, "replay")
        with pytest.raises(ClientError) as refused:
            await client.get_item(**get_item_body(tables, "u2"))
        after = await stats(http, replayer, "stats")
    error = refused.value.response["Error"]
    assert error["Code"] == UNRECORDED.split("#")[1]
    assert call_key(GET_ITEM, json.dumps(get_item_body(tables, "u2")).encode()) in error["Message"]
    assert (after["served"], after["refused"]) == (0, 1)  # refused once: botocore did not retry


def test_a_call_is_keyed_by_its_operation_and_parameters_not_their_spelling() -> None:
    a = call_key(GET_ITEM, b'{"TableName": "t", "Key": {"PK": {"S": "x"}}}')
    b = call_key(GET_ITEM, b'{"Key":{"PK":{"S":"x"}},"TableName":"t"}')
    assert a == b
    assert a != call_key("DynamoDB_20120810.Query", b'{"Key":{"PK":{"S":"x"}},"TableName":"t"}')
    assert a != call_key(GET_ITEM, b'{"Key":{"PK":{"S":"y"}},"TableName":"t"}')
