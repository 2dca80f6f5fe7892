"""Idempotency keys as a client sends them (SPEC section 9), and the refusals about them.

A key comes in the `Idempotency-Key` header (the IETF draft's Structured Field string,
`"…"`, or a bare token) for a request of one operation, or in the operation's
`extensions.idempotencyKey` (each operation of a batch, a mutation over the socket).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLError, parse, print_ast

from loaders.errors import GatewayError

HEADER = "idempotency-key"
#: The response header of a replayed answer (the draft's name).
REPLAYED_HEADER = "Idempotency-Replayed"
EXTENSION = "idempotencyKey"
MAX_KEY_LENGTH = 255


class InvalidIdempotencyKey(GatewayError):
    code = "BAD_USER_INPUT"
    default_message = "Idempotency-Key must be 1 to 255 printable ASCII characters"


class IdempotencyKeyReused(GatewayError):
    """HTTP 422: the key's record is of another operation, document or variables."""

    code = "IDEMPOTENCY_KEY_REUSED"
    default_message = (
        "This Idempotency-Key was used for a different request (another document, operation "
        "name or variables); use a new key for a new request"
    )


class IdempotencyKeyRequired(GatewayError):
    """HTTP 400 under `INSIGHT_IDEMPOTENCY=required`: a mutation sent without a key."""

    code = "IDEMPOTENCY_KEY_REQUIRED"
    default_message = (
        "Mutations need an Idempotency-Key on this gateway (the header, or "
        "extensions.idempotencyKey in a batch or over the socket)"
    )


def valid_key(key: object) -> str:
    """`key` when it is 1 to 255 printable ASCII characters, else InvalidIdempotencyKey."""
    if (
        not isinstance(key, str)
        or not 1 <= len(key) <= MAX_KEY_LENGTH
        or not all(" " <= char <= "~" for char in key)
    ):
        raise InvalidIdempotencyKey()
    return key


def header_key(value: str) -> str:
    """The key of an `Idempotency-Key` header: an sf-string (`"…"`, with `\\"` and `\\\\`
    escapes) or a bare token."""
    value = value.strip(" \t")
    if not value.startswith('"'):
        return valid_key(value)
    if len(value) < 2 or not value.endswith('"'):
        raise InvalidIdempotencyKey()
    chars: list[str] = []
    escaped = False
    for char in value[1:-1]:
        if escaped:
            if char not in '"\\':
                raise InvalidIdempotencyKey()
            chars.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            raise InvalidIdempotencyKey()
        else:
            chars.append(char)
    if escaped:
        raise InvalidIdempotencyKey()
    return valid_key("".join(chars))


def extension_key(extensions: Mapping[str, Any] | None) -> str | None:
    """The operation's `extensions.idempotencyKey`, checked; None when it has none."""
    if not extensions or extensions.get(EXTENSION) is None:
        return None
    return valid_key(extensions[EXTENSION])


@dataclass(frozen=True, slots=True)
class KeyedOperation:
    """A mutation sent with a key: whose key, and what it was sent for."""

    sub: str
    key: str
    fingerprint: str


def fingerprint(
    text: str, operation_name: str | None, variables: Mapping[str, Any] | None, max_tokens: int
) -> str:
    """The digest of the document as the parser sees it (so spacing, commas and comments do
    not count), the operation name and the variables as canonical JSON."""
    try:
        document = print_ast(parse(text, no_location=True, max_tokens=max_tokens))
    except GraphQLError:
        # Its execution refuses it (and a refusal is never recorded): the text will do.
        document = text
    # ASCII-escaped, so that any string (a lone surrogate too) has one canonical form.
    canonical = json.dumps(
        [document, operation_name, variables or {}],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()
