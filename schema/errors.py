"""What a client sees of an error: a GatewayError's message and code, or a masked
INTERNAL_SERVER_ERROR carrying the request id that the logs carry too; and the schema's own
GatewayErrors (a refused read or mutation, a query over a limit)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types import StreamExecutionResult

from loaders.errors import GatewayError

__all__ = ["INTERNAL_MESSAGE", "Forbidden", "GatewayErrors", "QueryTooComplex", "graphql_error"]

logger = logging.getLogger("gateway.errors")

INTERNAL_MESSAGE = "Internal server error"


class Forbidden(GatewayError):
    code = "FORBIDDEN"
    default_message = "Not allowed"


class QueryTooComplex(GatewayError):
    code = "QUERY_TOO_COMPLEX"
    default_message = "Query too complex"

    def __init__(self, limit_name: str, limit: int, figure: int) -> None:
        super().__init__(
            f"Query {limit_name} {figure} is over the limit of {limit}",
            extensions={"limit": limit_name, "maximum": limit, "actual": figure},
        )


def graphql_error(error: GatewayError) -> GraphQLError:
    """A request error (no path, no `data`), coded by the GatewayError it carries."""
    return GraphQLError(error.message, extensions=error.graphql_extensions(), original_error=error)


def _is_internal(error: GraphQLError) -> bool:
    # Parse, validation and variable errors have no path: they describe the request and
    # are the client's to read. Execution errors are internal unless a GatewayError.
    return error.path is not None and not isinstance(error.original_error, GatewayError)


def _is_bad_variable(error: GraphQLError) -> bool:
    return error.path is None and error.message.startswith("Variable '$")


def _is_bad_argument(error: GraphQLError) -> bool:
    # An argument graphql-core could not coerce when it came to the field: a variable with
    # a default, sent as an explicit null, in a non-null argument (validation allows the
    # position, execution refuses the value). The client's input, at the field's path.
    original = error.original_error
    return isinstance(original, GraphQLError) and original.message.startswith("Argument '")


class GatewayErrors(SchemaExtension):
    """Codes every error of an answer and masks the internal ones, through strawberry's
    public hooks: each streamed result as it is yielded, else the operation's result once
    the operation ends (what strawberry's `MaskErrors` does, with the gateway's codes)."""

    def on_operation(self) -> Iterator[None]:
        self.streamed = False
        yield
        # A stream's results were coded one by one; its last is the context's result too.
        if not self.streamed:
            self.code(self.execution_context.result)

    def on_stream_result(self, result: StreamExecutionResult) -> Iterator[None]:
        self.streamed = True
        self.code(result)
        yield

    def code(self, result: object) -> None:
        # Not strawberry's `isinstance` against a runtime-checkable Protocol (which walks
        # the Protocol's members on every call): a result whose `errors` is non-empty.
        errors = getattr(result, "errors", None)
        if errors:
            result.errors = self.coded(errors)  # type: ignore[attr-defined]

    def coded(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        request_id = getattr(self.execution_context.context, "request_id", "")
        processed = []
        for error in errors:
            original = error.original_error
            if isinstance(original, GatewayError):
                error.extensions = original.graphql_extensions()
            elif _is_bad_variable(error) or _is_bad_argument(error):
                # A variable that does not coerce (an unreal Date, a Decimal that is not a
                # number, a missing required field), or an argument: the client's input, as
                # Apollo codes it.
                error.extensions = {"code": "BAD_USER_INPUT"}
            elif _is_internal(error):
                logger.error(
                    "internal error in %s (request %s)",
                    ".".join(str(part) for part in error.path or ()),
                    request_id,
                    exc_info=original,
                )
                error = GraphQLError(
                    INTERNAL_MESSAGE,
                    nodes=error.nodes,
                    source=error.source,
                    positions=error.positions,
                    path=error.path,
                    extensions={"code": "INTERNAL_SERVER_ERROR", "requestId": request_id},
                )
            processed.append(error)
        return processed
