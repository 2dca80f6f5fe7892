"""The errors a client may see. Anything else is masked as INTERNAL_SERVER_ERROR."""

from __future__ import annotations

from typing import Any, ClassVar


class GatewayError(Exception):
    """Base of every error whose message and code reach the client.

    `extensions` are added to the GraphQL error's `extensions` beside `code`;
    `cause` keeps the underlying exception for logs, never for the client.
    """

    code: ClassVar[str] = "INTERNAL_SERVER_ERROR"
    default_message: ClassVar[str] = "Internal server error"

    def __init__(
        self,
        message: str | None = None,
        *,
        extensions: dict[str, Any] | None = None,
        cause: BaseException | None = None,
    ) -> None:
        super().__init__(message or self.default_message)
        self.message = message or self.default_message
        self.extensions = dict(extensions or {})
        self.cause = cause

    def graphql_extensions(self) -> dict[str, Any]:
        return {"code": self.code, **self.extensions}


class Unauthenticated(GatewayError):
    code = "UNAUTHENTICATED"
    default_message = "A valid bearer token is required"


class Forbidden(GatewayError):
    code = "FORBIDDEN"
    default_message = "Not allowed"


class BadUserInput(GatewayError):
    code = "BAD_USER_INPUT"
    default_message = "Bad input"

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}", extensions={"field": field})
        self.field = field


class QueryTooComplex(GatewayError):
    code = "QUERY_TOO_COMPLEX"
    default_message = "Query too complex"

    def __init__(self, limit_name: str, limit: int, figure: int) -> None:
        super().__init__(
            f"Query {limit_name} {figure} is over the limit of {limit}",
            extensions={"limit": limit_name, "maximum": limit, "actual": figure},
        )


class DynamoDBUnavailable(GatewayError):
    code = "DYNAMODB_UNAVAILABLE"
    default_message = "The data store is unavailable; try again"


class BadRequest(GatewayError):
    """The HTTP request itself is malformed (not JSON, no query, bad parameters)."""

    code = "BAD_REQUEST"
    default_message = "Bad request"


class PersistedQueryNotInList(GatewayError):
    """Trusted documents are enforced and the operation is not one of them (refused unread)."""

    code = "PERSISTED_QUERY_NOT_IN_LIST"
    default_message = "This operation is not in the gateway's list of trusted documents"


class RateLimited(GatewayError):
    """The principal's budget of cost points is spent (HTTP 429, with Retry-After)."""

    code = "RATE_LIMITED"
    default_message = "Rate limit exceeded"

    def __init__(
        self, *, policy: str, limit: int, window_seconds: int, cost: int, retry_after: int
    ):
        if cost > limit:
            message = (
                f"This operation costs {cost} points, more than the whole {policy} budget of "
                f"{limit} per {window_seconds} s: it is never served to this principal"
            )
        else:
            message = (
                f"The {policy} budget of {limit} cost points per {window_seconds} s is spent "
                f"(this operation costs {cost}); retry in {retry_after} s"
            )
        super().__init__(
            message,
            extensions={
                "retryAfter": retry_after,
                "limit": {"policy": policy, "points": limit, "windowSeconds": window_seconds},
                "cost": cost,
            },
        )
        self.retry_after = retry_after


class RateLimitUnavailable(GatewayError):
    """The budgets' storage is unreachable and the gateway is set to fail closed (HTTP 503).

    The contract's codes have none for this: it is the gateway's own failure, so
    INTERNAL_SERVER_ERROR, with a message that says what to do and names no host."""

    code = "INTERNAL_SERVER_ERROR"
    default_message = "The rate limiter is unavailable; try again"
