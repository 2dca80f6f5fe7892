"""The errors a client may see: their base, and the data layer's own.

Every error whose message and code reach a client is a GatewayError, declared in the lowest
layer that raises it: here the base and the data layer's (bad input, DynamoDB unavailable);
`schema/errors.py` the schema's (Forbidden, QueryTooComplex); the gateway's beside what raises
them (`gateway/auth/tokens.py` Unauthenticated, `gateway/http/http_problem.py` BadRequest,
`gateway/protection/` RateLimited, RateLimitUnavailable and PersistedQueryNotInList). Each
declares its `code`; `GatewayError.graphql_extensions` is the one place that turns an error
into its GraphQL code and extensions. Anything else is masked as INTERNAL_SERVER_ERROR.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["BadUserInput", "DynamoDBUnavailable", "GatewayError"]


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


class BadUserInput(GatewayError):
    code = "BAD_USER_INPUT"
    default_message = "Bad input"

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}", extensions={"field": field})
        self.field = field


class DynamoDBUnavailable(GatewayError):
    code = "DYNAMODB_UNAVAILABLE"
    default_message = "The data store is unavailable; try again"
