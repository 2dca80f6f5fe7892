"""Reading a GraphQL-over-HTTP request into operations, refusing what is malformed.

Nothing here parses GraphQL: it only turns the HTTP request (GET parameters or a JSON
POST body, capped in size) into `(query, variables, operationName, extensions)` records.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from gateway import idempotency
from gateway.http.http_problem import HttpProblem
from gateway.http.media_types import JSON
from gateway.operations.operation import BadRequest, Operation
from gateway.operations.unicode_text import holds_lone_surrogate


@dataclass(frozen=True, slots=True)
class GraphQLRequest:
    operations: list[Operation]
    batched: bool


def bad_request(message: str) -> HttpProblem:
    return HttpProblem(400, BadRequest(message))


def require_json_body(request: Request) -> None:
    """A POST must say `Content-Type: application/json` (charset, if any, UTF-8).

    This also is the CSRF rule: a browser sends a cross-site POST without a preflight
    only as a "simple request" (text/plain, form or multipart bodies), and all of
    those are refused here, before the body is read.
    """
    raw = request.headers.get("content-type")
    media, *params = (piece.strip() for piece in (raw or "").split(";"))
    charsets = [
        p.partition("=")[2].strip('"').lower() for p in params if p.lower().startswith("charset=")
    ]
    if media.lower() != JSON or any(charset not in {"utf-8", "utf8"} for charset in charsets):
        shown = f"{raw!r}" if raw else "none"
        raise HttpProblem(
            415,
            BadRequest(
                f"POST bodies must be application/json (UTF-8); the content type was {shown}"
            ),
            {"Accept": JSON},
        )


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The body, refused with 413 as soon as it is over `max_bytes` (declared or streamed)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise bad_request("Content-Length is not a number")
        if int(declared) > max_bytes:
            raise _too_large(max_bytes)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(max_bytes: int) -> HttpProblem:
    return HttpProblem(413, BadRequest(f"The request body is over {max_bytes} bytes"))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str | bytes, what: str) -> Any:
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise bad_request(f"{what} is nested too deeply") from None
    except (ValueError, UnicodeDecodeError):
        raise bad_request(f"{what} is not valid JSON") from None
    if holds_lone_surrogate(data):
        # Not echoed: the message itself must stay encodable.
        raise bad_request(f"{what} holds a lone surrogate (\\ud800-\\udfff), which is not text")
    return data


def operation_of(data: Any, where: str = "The request") -> Operation:
    if not isinstance(data, dict):
        raise bad_request(f"{where} must be a JSON object with a 'query'")
    query = data.get("query")
    variables = data.get("variables")
    operation_name = data.get("operationName")
    extensions = data.get("extensions")
    document_id = data.get("documentId")
    if not isinstance(query, str | None):
        raise bad_request(f"{where}: 'query' must be a string")
    if not isinstance(variables, dict | None):
        raise bad_request(f"{where}: 'variables' must be an object")
    if not isinstance(operation_name, str | None):
        raise bad_request(f"{where}: 'operationName' must be a string")
    if not isinstance(extensions, dict | None):
        raise bad_request(f"{where}: 'extensions' must be an object")
    if not isinstance(document_id, str | None):
        raise bad_request(f"{where}: 'documentId' must be a string")
    if document_id is not None and query is not None:
        raise bad_request(f"{where}: send a 'documentId' or a 'query', not both")
    return Operation(query, variables, operation_name, extensions, document_id)


def read_get(request: Request) -> GraphQLRequest:
    params = request.query_params
    data: dict[str, Any] = {
        "query": params.get("query"),
        "operationName": params.get("operationName"),
        "documentId": params.get("documentId"),
    }
    for name in ("variables", "extensions"):
        raw = params.get(name)
        if raw is not None and raw != "":
            data[name] = parse_json(raw, f"The '{name}' parameter")
    return GraphQLRequest([operation_of(data)], batched=False)


async def read_post(request: Request, *, max_bytes: int, max_batch: int) -> GraphQLRequest:
    """A POST's operations; its content type was checked first (`require_json_body`)."""
    body = await read_body(request, max_bytes)
    data = parse_json(body, "The request body")
    if not isinstance(data, list):
        return GraphQLRequest([operation_of(data)], batched=False)
    if max_batch == 0:
        raise bad_request("Batched operations are turned off: send one operation per request")
    if not 1 <= len(data) <= max_batch:
        raise bad_request(f"A batch holds 1 to {max_batch} operations, not {len(data)}")
    return GraphQLRequest(
        [operation_of(item, f"Operation {index}") for index, item in enumerate(data)],
        batched=True,
    )


def keyed_by_header(graphql_request: GraphQLRequest, header: str | None) -> GraphQLRequest:
    """The `Idempotency-Key` header, as the operation's `extensions.idempotencyKey`."""
    if header is None:
        return graphql_request
    if graphql_request.batched:
        raise HttpProblem(
            400,
            BadRequest(
                "Idempotency-Key names one operation: in a batch, give each operation its own "
                "extensions.idempotencyKey"
            ),
        )
    try:
        key = idempotency.header_key(header)
    except idempotency.InvalidIdempotencyKey as error:
        raise HttpProblem(400, error) from error
    (operation,) = graphql_request.operations
    extensions = dict(operation.extensions or {})
    if extensions.setdefault(idempotency.EXTENSION, key) != key:
        raise HttpProblem(
            400,
            idempotency.InvalidIdempotencyKey(
                "The Idempotency-Key header and extensions.idempotencyKey differ"
            ),
        )
    keyed = dataclasses.replace(operation, extensions=extensions)
    return dataclasses.replace(graphql_request, operations=[keyed])
