"""The DynamoDB Streams calls the readers make, as a protocol (aioboto3's
`dynamodbstreams` client is one; the tests' fault layer wraps it), and their error codes."""

from __future__ import annotations

from typing import Any, Protocol

from botocore.exceptions import ClientError

__all__ = ["StreamsApi", "error_code"]

EXPIRED_ITERATOR = "ExpiredIteratorException"
TRIMMED_DATA = "TrimmedDataAccessException"
#: The stream's answers to too many calls (DynamoDB Streams allows ~5 GetRecords a second
#: per shard, shared by every consumer of the stream).
THROTTLING = frozenset(
    {
        "LimitExceededException",
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
    }
)
#: The stream or shard is gone (stream disabled, table deleted).
NOT_FOUND = "ResourceNotFoundException"


class StreamsApi(Protocol):
    """DescribeStream, GetShardIterator and GetRecords, with botocore's parameters and
    answers; failures are botocore's `ClientError` (or a connection error)."""

    async def describe_stream(self, **params: Any) -> Any: ...

    async def get_shard_iterator(self, **params: Any) -> Any: ...

    async def get_records(self, **params: Any) -> Any: ...


def error_code(error: BaseException) -> str:
    """The AWS error code of a `ClientError`, "" for anything else."""
    if isinstance(error, ClientError):
        code: str = error.response.get("Error", {}).get("Code", "")
        return code
    return ""
