"""botocore's standard retry mode, as the lean path needs it: which failures are retried,
and the retry quota. The connections (loaders/wire/connection.py, pool.py) fail with
botocore's own exceptions, as aiobotocore maps aiohttp's, so logs and metrics name them as
before."""

from __future__ import annotations

from botocore.exceptions import (
    ConnectionError,
    ConnectTimeoutError,
    HTTPClientError,
    ReadTimeoutError,
)

__all__ = ["RetryQuota", "is_retryable"]

#: botocore.retries.standard: transient codes and statuses, and the throttling codes.
TRANSIENT_CODES = frozenset(
    {"RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete"}
)
TRANSIENT_STATUSES = frozenset({500, 502, 503, 504})
THROTTLING_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottledException",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "TransactionInProgressException",
        "RequestLimitExceeded",
        "BandwidthLimitExceeded",
        "LimitExceededException",
        "RequestThrottled",
        "SlowDown",
        "PriorRequestNotComplete",
        "EC2ThrottledException",
    }
)


def is_retryable(code: str | None, status: int | None, failure: Exception) -> bool:
    """botocore's `StandardRetryConditions`: transient, throttled, or a network failure."""
    if isinstance(failure, ConnectionError | HTTPClientError):
        return True
    if code in TRANSIENT_CODES or code in THROTTLING_CODES:
        return True
    return status in TRANSIENT_STATUSES


class RetryQuota:
    """botocore's `RetryQuotaChecker`: a bucket of 500; a retry takes 5 (a timeout 10), a
    success gives back what its retry took, or 1 when it needed none."""

    CAPACITY = 500
    RETRY_COST = 5
    TIMEOUT_COST = 10

    def __init__(self) -> None:
        self.available = self.CAPACITY

    def acquire(self, failure: Exception) -> int:
        """What a retry after `failure` takes from the bucket; 0: no retry (it is empty)."""
        cost = (
            self.TIMEOUT_COST
            if isinstance(failure, ConnectTimeoutError | ReadTimeoutError)
            else self.RETRY_COST
        )
        if cost > self.available:
            return 0
        self.available -= cost
        return cost

    def release(self, taken: int) -> None:
        """A call succeeded: what its last retry took comes back, or 1 when it needed none."""
        self.available = min(self.CAPACITY, self.available + (taken or 1))
