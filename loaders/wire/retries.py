"""botocore's standard retry mode, as the lean path needs it: which failures are retried,
the retry quota, and aiohttp's failures as botocore's exceptions (aiobotocore's mapping in
`aiobotocore.httpsession`), so that logs and metrics name them as before."""

from __future__ import annotations

import asyncio

import aiohttp
from aiohttp.client_exceptions import (
    ClientConnectionError,
    ClientConnectorError,
    ClientHttpProxyError,
    ClientProxyConnectionError,
    ClientSSLError,
    ServerDisconnectedError,
    ServerTimeoutError,
)
from botocore.exceptions import (
    ConnectionClosedError,
    ConnectionError,
    ConnectTimeoutError,
    EndpointConnectionError,
    HTTPClientError,
    ProxyConnectionError,
    ReadTimeoutError,
    SSLError,
)

__all__ = ["RetryQuota", "is_retryable", "transport_error"]

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


def transport_error(error: BaseException, url: str) -> Exception:
    """An aiohttp (or timeout) failure as the botocore exception aiobotocore raises for it."""
    if isinstance(error, ClientSSLError):
        return SSLError(endpoint_url=url, error=error)
    if isinstance(error, ClientProxyConnectionError | ClientHttpProxyError):
        return ProxyConnectionError(proxy_url=url, error=error)
    if isinstance(
        error,
        ServerDisconnectedError
        | aiohttp.ClientPayloadError
        | aiohttp.http_exceptions.BadStatusLine,
    ):
        return ConnectionClosedError(error=error, request=None, endpoint_url=url)
    if isinstance(error, ServerTimeoutError):
        if str(error).lower().startswith("connect"):
            return ConnectTimeoutError(endpoint_url=url, error=error)
        return ReadTimeoutError(endpoint_url=url, error=error)
    if isinstance(error, ClientConnectorError | ClientConnectionError):
        return EndpointConnectionError(endpoint_url=url, error=error)
    if isinstance(error, asyncio.TimeoutError):
        return ReadTimeoutError(endpoint_url=url, error=error)
    return HTTPClientError(error=error)
