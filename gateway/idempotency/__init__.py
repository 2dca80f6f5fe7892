"""Retried mutations (SPEC section 9): keys, fingerprints, and the keyed run, for both
transports (HTTP and the subscriptions' socket)."""

from gateway.idempotency.keys import (
    EXTENSION,
    HEADER,
    REPLAYED_HEADER,
    IdempotencyKeyRequired,
    IdempotencyKeyReused,
    InvalidIdempotencyKey,
    KeyedOperation,
    header_key,
)
from gateway.idempotency.runner import OUTCOMES, Answer, Idempotency, error_answer

__all__ = [
    "EXTENSION",
    "HEADER",
    "OUTCOMES",
    "REPLAYED_HEADER",
    "Answer",
    "Idempotency",
    "IdempotencyKeyRequired",
    "IdempotencyKeyReused",
    "InvalidIdempotencyKey",
    "KeyedOperation",
    "error_answer",
    "header_key",
]
