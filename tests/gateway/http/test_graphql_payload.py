from __future__ import annotations

import logging

import pytest
from graphql import GraphQLError, GraphQLSyntaxError, Source
from strawberry.types import ExecutionResult
from strawberry.types.execution import PreExecutionError

from gateway.operations.payload import is_request_error, payload_of
from schema.errors import QueryTooComplex


def test_an_unexpected_exception_before_execution_is_masked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """strawberry turns an extension's crash into an error with its text: not for clients."""
    crash = KeyError("site-pave-prod: botocore said no")
    result = PreExecutionError(data=None, errors=[GraphQLError(str(crash), original_error=crash)])
    with caplog.at_level(logging.ERROR, logger="gateway.errors"):
        payload = payload_of(result, "req-9")
    assert payload == {
        "errors": [
            {
                "message": "Internal server error",
                "extensions": {"code": "INTERNAL_SERVER_ERROR", "requestId": "req-9"},
            }
        ]
    }
    assert caplog.records[0].exc_info is not None
    assert "req-9" in caplog.records[0].getMessage()


def test_request_errors_get_the_code_of_their_kind() -> None:
    syntax = GraphQLSyntaxError(Source("{"), 1, "Expected Name, found <EOF>.")
    validation = GraphQLError("Cannot query field 'x' on type 'User'.")
    limit = QueryTooComplex("depth", 10, 11)
    too_deep = GraphQLError(limit.message, original_error=limit)
    payload = payload_of(PreExecutionError(data=None, errors=[syntax, validation, too_deep]), "r")
    assert "data" not in payload
    assert [error["extensions"]["code"] for error in payload["errors"]] == [
        "GRAPHQL_PARSE_FAILED",
        "GRAPHQL_VALIDATION_FAILED",
        "QUERY_TOO_COMPLEX",
    ]
    variable = GraphQLError("Variable '$n' got invalid value 'x'.")
    assert payload_of(ExecutionResult(data=None, errors=[variable]), "r")["errors"][0][
        "extensions"
    ] == {"code": "BAD_USER_INPUT"}


def test_field_errors_keep_data_and_their_own_extensions() -> None:
    field_error = GraphQLError("Not allowed", path=["user"], extensions={"code": "FORBIDDEN"})
    result = ExecutionResult(data=None, errors=[field_error])
    assert not is_request_error(result)
    assert payload_of(result, "r") == {
        "data": None,
        "errors": [
            {"message": "Not allowed", "path": ["user"], "extensions": {"code": "FORBIDDEN"}}
        ],
    }
