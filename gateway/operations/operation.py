"""One GraphQL operation as a transport received it, before anything parses it, and the
error for a request that is no GraphQL request at all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from loaders.errors import GatewayError


@dataclass(frozen=True, slots=True)
class Operation:
    query: str | None
    variables: dict[str, Any] | None
    operation_name: str | None
    extensions: dict[str, Any] | None
    #: A trusted document's id (GraphQL over HTTP's persisted documents draft), in place of query.
    document_id: str | None = None


class BadRequest(GatewayError):
    """The HTTP request itself is malformed (not JSON, no query, bad parameters)."""

    code = "BAD_REQUEST"
    default_message = "Bad request"
