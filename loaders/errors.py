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
