"""What `Dynamo` tells its observers: each finished call, and each batch given up with work
left (metrics, the per-request accounting, the DynamoDB failure log)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class FinishedCall:
    """One finished `Dynamo.call`, as observers see it."""

    operation: str
    params: Mapping[str, Any]
    seconds: float
    #: HTTP attempts botocore made (1 + its retries); 0 when it never reached botocore.
    attempts: int
    response: Mapping[str, Any] | None
    #: What the call raised (already wrapped), None on success.
    error: BaseException | None

    @property
    def retries(self) -> int:
        return max(0, self.attempts - 1)


#: Told of every finished call (metrics, per-request accounting).
CallObserver = Callable[[FinishedCall], None]


@dataclass(frozen=True, slots=True)
class AbandonedBatch:
    """A BatchGetItem or BatchWriteItem given up with keys or items still unprocessed
    (DynamoDB kept leaving them, past the unprocessed-keys deadline or the request's)."""

    operation: str
    #: The tables of what was left, as named in DynamoDB.
    tables: tuple[str, ...]
    #: Keys (BatchGetItem) or items (BatchWriteItem) left unprocessed.
    left: int
    #: Calls sent before giving up (each retried by botocore on its own).
    rounds: int
    seconds: float


#: Told when a batch is given up with work left (the failure log).
AbandonObserver = Callable[[AbandonedBatch], None]
