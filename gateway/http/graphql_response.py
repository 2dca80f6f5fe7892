"""The HTTP answer of a GraphQL request: its JSON, its status under the budgets, and the
errors it carries (for the metrics)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import orjson
from starlette.responses import Response
from strawberry.types import ExecutionResult

from gateway.http.media_types import GRAPHQL_RESPONSE_JSON
from gateway.idempotency import Answer
from gateway.operations.payload import formatted, is_request_error, payload_of
from gateway.protection.rate_limit import RateLimited, RateLimitUnavailable
from loaders.errors import GatewayError

#: What a request's operation came to: an execution, a refusal, or a keyed mutation's answer.
Result = ExecutionResult | GatewayError | Answer


def refuse_over_budget(response: Response, results: list[Result]) -> None:
    """`Retry-After` when the budget refused an operation; the status 429 when it refused
    every operation of the request (a batch partly served stays 200), 503 when the budgets'
    storage is down and the gateway fails closed."""
    refusals = [_budget_refusal(result) for result in results]
    limited = [refusal for refusal in refusals if isinstance(refusal, RateLimited)]
    if limited:
        response.headers["Retry-After"] = str(max(refusal.retry_after for refusal in limited))
    if refusals and all(refusals):
        response.status_code = 429 if limited else 503


def _budget_refusal(result: Result) -> GatewayError | None:
    if isinstance(result, Answer):
        # A replay, or a keyed mutation's answer: the budget refused it only if it ran.
        if not isinstance(result.source, ExecutionResult):
            return None
        result = result.source
    if isinstance(result, GatewayError) or result.data is not None:
        return None
    for error in result.errors or ():
        if isinstance(error.original_error, RateLimited | RateLimitUnavailable):
            return error.original_error
    return None


def error_response(status: int, errors: list[GatewayError], media_type: str) -> Response:
    return GraphQLResponse({"errors": [formatted(error) for error in errors]}, status, media_type)


class GraphQLResponse(Response):
    """A GraphQL answer that keeps the payload it was written from."""

    def __init__(self, payload: Any, status: int, media_type: str) -> None:
        # orjson writes what `json.dumps(separators=(",", ":"), ensure_ascii=False)` wrote,
        # UTF-8 and compact, in a fraction of its time. Where they differ it is stricter: a
        # non-finite float would be null, not the invalid `NaN` (graphql-core never lets one
        # through a Float), and a value it cannot encode raises (a 500) as json's did.
        super().__init__(
            orjson.dumps(payload), status_code=status, media_type=f"{media_type}; charset=utf-8"
        )
        self.payload = payload


def answered_errors(payload: Any) -> Iterator[Mapping[str, Any]]:
    """Each error of a payload (or of a batch's payloads), as formatted for the client."""
    for one in payload if isinstance(payload, list) else [payload]:
        yield from one.get("errors") or ()


def status_of(result: ExecutionResult | GatewayError, media_type: str) -> int:
    """GraphQL over HTTP: a request refused before execution is 400 in its own media type."""
    return 400 if media_type == GRAPHQL_RESPONSE_JSON and is_request_error(result) else 200


def batched_payload(result: Result, request_id: str) -> dict[str, Any]:
    if not isinstance(result, Answer):
        return payload_of(result, request_id)
    if result.replayed:
        # A batch answers 200 as a whole: the replay is told per operation.
        return {**result.payload, "extensions": {"idempotencyReplayed": True}}
    return result.payload
