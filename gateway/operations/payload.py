"""The JSON body of a GraphQL response, with a code on every error.

Errors raised by the gateway carry their own code. Those of a request refused before
execution get the code of their kind (Apollo's names, which GraphQL clients know):
GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, or BAD_USER_INPUT for variables of the
wrong type. An unexpected exception that strawberry turned into an error before execution
(a bug, not the client's doing) is masked like any other internal error.
"""

from __future__ import annotations

import logging
from typing import Any

from graphql import GraphQLError, GraphQLSyntaxError
from strawberry.types import ExecutionResult
from strawberry.types.execution import PreExecutionError

from loaders.errors import GatewayError

logger = logging.getLogger("gateway.errors")

PARSE_FAILED = "GRAPHQL_PARSE_FAILED"
VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED"
BAD_USER_INPUT = "BAD_USER_INPUT"


def is_request_error(result: ExecutionResult | GatewayError) -> bool:
    """Refused before execution (parse, validation, limits, variables): there is no `data`.

    Field errors always carry a path; the errors of a request that never ran have none.
    """
    if isinstance(result, GatewayError):
        return True
    errors = result.errors or []
    return result.data is None and bool(errors) and all(error.path is None for error in errors)


def payload_of(result: ExecutionResult | GatewayError, request_id: str) -> dict[str, Any]:
    if isinstance(result, GatewayError):
        return {"errors": [formatted(result)]}
    payload: dict[str, Any] = {}
    request_error = is_request_error(result)
    if not request_error:
        payload["data"] = result.data
    if result.errors:
        pre_execution = isinstance(result, PreExecutionError)
        payload["errors"] = (
            coded_errors(result.errors, pre_execution=pre_execution, request_id=request_id)
            if request_error
            else [error.formatted for error in result.errors]
        )
    if result.extensions:
        payload["extensions"] = result.extensions
    return payload


def coded_errors(
    errors: list[GraphQLError], *, pre_execution: bool, request_id: str
) -> list[dict[str, Any]]:
    """The errors of a request refused before execution as the client sees them, each with
    a code, an internal one masked and logged (over HTTP, and in a socket's `error` message)."""
    return [_coded(error, pre_execution, request_id) for error in errors]


def formatted(error: GatewayError) -> dict[str, Any]:
    return {"message": error.message, "extensions": error.graphql_extensions()}


def _coded(error: GraphQLError, pre_execution: bool, request_id: str) -> dict[str, Any]:
    original = error.original_error
    if isinstance(original, GatewayError):
        return {**error.formatted, "extensions": original.graphql_extensions()}
    if original is not None and error.nodes is None and not isinstance(original, GraphQLError):
        logger.error("internal error before execution (request %s)", request_id, exc_info=original)
        return formatted(GatewayError(extensions={"requestId": request_id}))
    shown = error.formatted
    extensions = dict(shown.get("extensions") or {})
    if "code" not in extensions:
        if isinstance(error, GraphQLSyntaxError):
            extensions["code"] = PARSE_FAILED
        elif pre_execution:
            extensions["code"] = VALIDATION_FAILED
        else:
            extensions["code"] = BAD_USER_INPUT
    return {**shown, "extensions": extensions}
