"""The response body: orjson's bytes are the compact UTF-8 JSON the gateway always wrote."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway.http.graphql_response import GraphQLResponse

PAYLOADS: list[Any] = [
    {"data": {"user": {"id": "u-1", "rituals": [], "alert": None}}},
    {
        "data": {
            "user": {
                "recurringExpenses": [
                    {"merchantName": "Café Zoë ☕ 東京 🚀", "amount": 12.34, "due": "2026-12-02"},
                    {"merchantName": 'quote " backslash \\ slash /', "amount": 100.0},
                    {"merchantName": "tab\t newline\n nul\u0000 bell\u0007 \u001f", "amount": -0.5},
                    {"merchantName": "separators \u2028 \u2029 bom \ufeff", "amount": 1234567.89},
                ],
                "flags": [True, False, None, 0, -2147483648, 2147483647],
            }
        },
        "extensions": {"cost": {"dynamodbCalls": 4, "roundTrips": 1, "readCapacityUnits": 6.5}},
    },
    [{"errors": [{"message": "Ünknown", "extensions": {"code": "BAD_USER_INPUT"}}]}, {}],
]


def stdlib_body(payload: Any) -> bytes:
    """What the view wrote with the standard library before."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_body_is_byte_for_byte_the_stdlib_one(payload: Any) -> None:
    body = bytes(GraphQLResponse(payload, 200, "application/json").body)
    assert body == stdlib_body(payload)
    assert json.loads(body) == payload


def test_the_body_says_its_charset() -> None:
    response = GraphQLResponse({"errors": []}, 400, "application/graphql-response+json")
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/graphql-response+json; charset=utf-8"


def test_a_value_json_cannot_encode_is_still_refused() -> None:
    with pytest.raises(TypeError):
        GraphQLResponse({"data": {"x": object()}}, 200, "application/json")
    with pytest.raises(TypeError):
        # A lone surrogate is not UTF-8: never written as broken bytes.
        GraphQLResponse({"data": {"x": "\ud800"}}, 200, "application/json")
