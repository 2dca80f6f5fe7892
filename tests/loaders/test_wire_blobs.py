"""The lean path's answers (orjson, blobs decoded by `loaders.wire.blobs`) are exactly what
botocore's own parser gives, for every attribute type."""

from __future__ import annotations

import base64
import json
from typing import Any

import botocore.session
import orjson
import pytest
from aiobotocore.parsers import AioResponseParserFactory
from hypothesis import given
from hypothesis import strategies as st

from loaders.wire.blobs import BLOB_MARKS, decode_blobs, may_hold_blobs

B64 = base64.b64encode(b"\x00\xffbytes").decode()

EVERY_TYPE: dict[str, Any] = {
    "PK": {"S": "USERS#u-1"},
    "n": {"N": "12.50"},
    "b": {"B": B64},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": [B64, B64]},
    "t": {"BOOL": True},
    "nothing": {"NULL": True},
    "m": {"M": {"inner": {"B": B64}, "list": {"L": [{"B": B64}, {"S": "x"}, {"M": {}}]}}},
    "l": {"L": [{"N": "1"}, {"L": [{"BS": [B64]}]}, {"NULL": True}]},
    "empty_l": {"L": []},
}

RESPONSES: dict[str, dict[str, Any]] = {
    "Query": {
        "Items": [EVERY_TYPE, {"PK": {"S": "x"}}],
        "Count": 2,
        "ScannedCount": 2,
        "LastEvaluatedKey": {"PK": {"S": "x"}, "SK": {"B": B64}},
        "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 1.5},
    },
    "BatchGetItem": {
        "Responses": {"t": [EVERY_TYPE]},
        "UnprocessedKeys": {"t": {"Keys": [{"PK": {"S": "y"}}], "ProjectionExpression": "a"}},
        "ConsumedCapacity": [{"TableName": "t", "CapacityUnits": 2.0}],
    },
    "GetItem": {"Item": EVERY_TYPE},
}


async def botocores(operation: str, body: bytes) -> Any:
    """`body` parsed by botocore's own parser, its metadata left out."""
    model = botocore.session.get_session().get_service_model("dynamodb")
    shape = model.operation_model(operation).output_shape
    response = {
        "status_code": 200,
        "headers": {"x-amzn-requestid": "req-1"},
        "body": body,
        "context": {"operation_name": operation},
    }
    parser: Any = AioResponseParserFactory().create_parser("json")
    parsed = await parser.parse(response, shape)
    del parsed["ResponseMetadata"]
    return parsed


def leans(body: bytes) -> Any:
    parsed: dict[str, Any] = orjson.loads(body)
    if may_hold_blobs(body):
        decode_blobs(parsed)
    return parsed


@pytest.mark.parametrize("operation", sorted(RESPONSES))
async def test_same_result_as_botocore(operation: str) -> None:
    body = json.dumps(RESPONSES[operation]).encode()
    lean = leans(body)
    assert lean == await botocores(operation, body)
    assert lean


NO_BLOBS = {key: value for key, value in EVERY_TYPE.items() if key not in ("b", "bs", "m", "l")}


@pytest.mark.parametrize(
    "body",
    [
        json.dumps({"Items": [NO_BLOBS] * 3, "Count": 3, "ScannedCount": 3}).encode(),
        # A blob key spelled with an escape is still a blob.
        b'{"Items": [{"k": {"\\u0042": "' + B64.encode() + b'"}}], "Count": 1}',
    ],
)
async def test_bodies_with_and_without_blobs(body: bytes) -> None:
    assert leans(body) == await botocores("Query", body)


@pytest.mark.parametrize(
    "body",
    [
        b'{"Item": {"k": {"S": "plain"}}}',
        b'{"Item": {"k": {"B": "AAEC"}}}',
        b'{"Item": {"k": {"BS": ["AAEC"]}}}',
        b'{"Item": {"k": {"\\u0042": "AAEC"}}}',
        b'{"Item": {"k": {"S": "Bank"}}}',
        b'{"Item": {"k": {"S": "a \\"quote\\""}}}',
        # More `B`s than the check looks at one by one: the marks' search decides.
        b'{"Item": {"k": {"S": "' + b"B" * 100 + b'"}}}',
        b'{"Item": {"k": {"S": "' + b"B" * 100 + b'"}, "b": {"B": "AAEC"}}}',
    ],
)
def test_the_quick_blob_check_is_the_marks_search(body: bytes) -> None:
    assert may_hold_blobs(body) == any(mark in body for mark in BLOB_MARKS)


@given(st.lists(st.sampled_from([b"B", b"S", b'"', b"\\", b"u", b"{", b"x"]), max_size=12))
def test_the_quick_blob_check_agrees_on_any_bytes(parts: list[bytes]) -> None:
    body = b"".join(parts)
    assert may_hold_blobs(body) == any(mark in body for mark in BLOB_MARKS)
