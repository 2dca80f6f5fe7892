"""DynamoDB's refusals as the gateway's exceptions: "could not answer now" (DynamoDBUnavailable,
which a client sees), a failed condition, a cancelled transaction, and our own bug."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from botocore.exceptions import ClientError

from loaders.errors import DynamoDBUnavailable, GatewayError

__all__ = [
    "UNAVAILABLE_CODES",
    "ConditionFailed",
    "DynamoDBFailure",
    "KeysRefused",
    "TokenReused",
    "TransactionCanceled",
    "classify",
]

_UNAVAILABLE = (
    "ProvisionedThroughputExceededException ThrottlingException RequestLimitExceeded "
    "InternalServerError ServiceUnavailable LimitExceededException "
    "TransactionInProgressException RequestTimeout RequestTimeoutException"
)
#: Error codes that mean "DynamoDB could not answer now", as opposed to a bad request.
UNAVAILABLE_CODES = frozenset(_UNAVAILABLE.split())


class ConditionFailed(Exception):
    """A conditional write's condition did not hold."""


class TransactionCanceled(Exception):
    """A TransactWriteItems cancelled: `reasons`, one per item, say which condition failed."""

    def __init__(self, reasons: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(f"transaction cancelled: {[r.get('Code') for r in reasons]}")
        self.reasons = list(reasons)

    def failed_conditions(self) -> list[int]:
        return [n for n, r in enumerate(self.reasons) if r.get("Code") == "ConditionalCheckFailed"]


class TokenReused(Exception):
    """A TransactWriteItems sent with the ClientRequestToken of another, different one in
    the last ten minutes (IdempotentParameterMismatchException)."""


class DynamoDBFailure(Exception):
    """DynamoDB refused a call for a reason that is our bug or our configuration."""


#: Reads whose keys are built from a client's ids (`loaders.validation.key_part` checks
#: them first, so a refusal here is a key that check let through).
_READS = frozenset({"batch_get_item", "get_item", "query"})


class KeysRefused(DynamoDBFailure, GatewayError):
    """DynamoDB found a read's keys invalid (ValidationException): the keys of that call
    fail with BAD_USER_INPUT, and only they. A client error, so the failure log's one line
    tells it, not a traceback per field."""

    code = "BAD_USER_INPUT"

    def __init__(self, operation: str, message: str | None = None) -> None:
        super().__init__(message or f"DynamoDB refused the keys of a {operation} as invalid")


def classify(operation: str, error: ClientError) -> Exception:
    """The exception `Dynamo.call` raises for a ClientError."""
    code = error.response.get("Error", {}).get("Code", "")
    if code == "ConditionalCheckFailedException":
        return ConditionFailed(code)
    if code == "TransactionCanceledException":
        reasons = error.response.get("CancellationReasons", [])
        if any(r.get("Code") == "ConditionalCheckFailed" for r in reasons):
            return TransactionCanceled(reasons)
        # Another transaction on an item, or throttling: DynamoDB could not answer now.
        return DynamoDBUnavailable(cause=error)
    if code == "IdempotentParameterMismatchException":
        return TokenReused(code)
    if code == "ValidationException" and operation in _READS:
        return KeysRefused(operation)
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
    if code in UNAVAILABLE_CODES or status >= 500:
        return DynamoDBUnavailable(cause=error)
    return DynamoDBFailure(f"{operation} refused: {code}")
