"""Failures that say why: one WARNING line per DynamoDB call that failed after its retries
(and per batch given up with keys left unprocessed), naming the operation, the tables, the
AWS error code (or the exception class for a timeout or a refused connection), the
attempts, the elapsed time and both request ids.

A client sees only DYNAMODB_UNAVAILABLE; the cause is written here. Under a sustained
outage every request fails the same way, so each kind of failure (operation and code) is
limited to `per_second` lines a second; the next line written of that kind says how many
were suppressed in between. The metrics (gateway.observability.metrics) count every one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from gateway.observability.logs import current_request_id
from loaders.dynamodb import AbandonedBatch, ConditionFailed, FinishedCall

logger = logging.getLogger("gateway.dynamodb")

#: Lines a second per kind of failure: enough to see an incident begin, few enough that an
#: outage at thousands of requests a second stays readable.
DEFAULT_PER_SECOND = 3


@dataclass(slots=True)
class _Window:
    started: float
    written: int = 0
    suppressed: int = 0


class FailureLog:
    """A Dynamo observer (`observe_call`, `observe_abandoned`) writing the failure lines.

    Runs in the task of the request that made the call, so the line carries its request
    id (the X-Request-ID, a masked error's `requestId`)."""

    def __init__(
        self,
        *,
        per_second: int = DEFAULT_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._per_second = per_second
        self._clock = clock
        self._windows: dict[tuple[str, str], _Window] = {}

    def observe_call(self, call: FinishedCall) -> None:
        # A condition that does not hold is an answer (the writer decides on it), not a
        # failure.
        if call.error is None or isinstance(call.error, ConditionFailed):
            return
        cause = _cause(call.error)
        self._write(
            operation=_operation_name(call.operation),
            tables=_tables(call.params),
            code=_code(cause),
            attempts=call.attempts,
            seconds=call.seconds,
            aws_request_id=_aws_request_id(cause),
            detail="",
        )

    def observe_abandoned(self, batch: AbandonedBatch) -> None:
        noun = "keys" if batch.operation == "batch_get_item" else "items"
        self._write(
            operation=_operation_name(batch.operation),
            tables=list(batch.tables),
            code="UnprocessedPastDeadline",
            attempts=batch.rounds,
            seconds=batch.seconds,
            aws_request_id=None,
            detail=f"; {batch.left} {noun} left unprocessed",
        )

    def _write(
        self,
        *,
        operation: str,
        tables: list[str],
        code: str,
        attempts: int,
        seconds: float,
        aws_request_id: str | None,
        detail: str,
    ) -> None:
        suppressed = self._admit((operation, code))
        if suppressed is None:
            return
        logger.warning(
            "DynamoDB %s on %s failed after %d attempt(s) in %.3f s: %s%s%s",
            operation,
            ", ".join(tables) or "-",
            attempts,
            seconds,
            code,
            detail,
            f" ({suppressed} more like it suppressed)" if suppressed else "",
            extra={
                "request_id": current_request_id(),
                "dynamodb_operation": operation,
                "tables": tables,
                "error_code": code,
                "attempts": attempts,
                "elapsed_ms": round(seconds * 1000, 3),
                "aws_request_id": aws_request_id,
                "suppressed": suppressed,
            },
        )

    def _admit(self, kind: tuple[str, str]) -> int | None:
        """None when this kind's line budget for the current second is spent (the line is
        counted as suppressed); else the count suppressed since its last line."""
        now = self._clock()
        window = self._windows.get(kind)
        if window is None or now - window.started >= 1.0:
            carried = window.suppressed if window is not None else 0
            window = self._windows[kind] = _Window(started=now, suppressed=carried)
        if window.written >= self._per_second:
            window.suppressed += 1
            return None
        window.written += 1
        suppressed, window.suppressed = window.suppressed, 0
        return suppressed


def _cause(error: BaseException) -> BaseException:
    """The botocore or network error under the gateway's wrapper."""
    return getattr(error, "cause", None) or error.__cause__ or error


#: The code of a call cut short by its request's deadline (loaders.deadline), which
#: asyncio raises as a bare TimeoutError; botocore's own timeouts have classes of their own.
REQUEST_DEADLINE = "RequestDeadlineExceeded"


def _code(cause: BaseException) -> str:
    if isinstance(cause, ClientError):
        code = cause.response.get("Error", {}).get("Code")
        if code:
            return str(code)
    if type(cause) is TimeoutError:
        return REQUEST_DEADLINE
    return type(cause).__name__


def _aws_request_id(cause: BaseException) -> str | None:
    if isinstance(cause, ClientError):
        request_id = cause.response.get("ResponseMetadata", {}).get("RequestId")
        return str(request_id) if request_id else None
    return None


def _tables(params: Mapping[str, Any]) -> list[str]:
    if "TableName" in params:
        return [str(params["TableName"])]
    return [str(name) for name in params.get("RequestItems", {})]


def _operation_name(method: str) -> str:
    """DynamoDB's name of a client method: batch_get_item -> BatchGetItem."""
    return "".join(part.capitalize() for part in method.split("_"))
