"""Which operation of a document runs: the one `operationName` names, or the only one.

The GraphQL specification's GetOperation: a document of several operations with no
`operationName` is an error. strawberry 0.341.2 takes the document's first operation
instead: its ExecutionContext's `operation_name` falls back to the first operation's name,
so graphql-core never sees the name missing, and that operation runs. This extension
refuses such a document once it is parsed, before anything else looks at it, by raising
strawberry's own `CannotGetOperationTypeError` (which strawberry lets out of `execute`, and
turns into the operation's first error in `stream`): the HTTP view answers it 400
`BAD_REQUEST` as it answers an unknown operation name, and the socket an `error` message
for that id. The name as sent is read through strawberry's public `operation_name`, before
the document is parsed, on every transport alike.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphql import OperationDefinitionNode
from strawberry.extensions import SchemaExtension
from strawberry.schema.exceptions import CannotGetOperationTypeError

#: graphql-core's own words for it (its executor's), which clients have seen before.
OPERATION_NAME_REQUIRED = "Must provide operation name if query contains multiple operations."


class OperationNameRequired(CannotGetOperationTypeError):
    def __init__(self) -> None:
        super().__init__(None)

    def as_http_error_reason(self) -> str:
        return OPERATION_NAME_REQUIRED


class OneOperationOrNamed(SchemaExtension):
    """Refuses a parsed document of several operations sent with no `operationName`."""

    def __init__(self) -> None:
        self.sent: str | None = None

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        # The name as the client sent it. The public `operation_name` falls back to the
        # document's first operation once there is a document; before parsing there is none
        # and it is the name given to `Schema.execute`/`stream`. A document given already
        # parsed leaves the name unknown: strawberry's choice stands, as it would unchecked.
        self.sent = context.operation_name if context.graphql_document is None else ""
        yield

    def on_parse(self) -> Iterator[None]:
        yield
        document = self.execution_context.graphql_document
        if self.sent is not None or document is None:
            return
        operations = sum(isinstance(d, OperationDefinitionNode) for d in document.definitions)
        if operations > 1:
            raise OperationNameRequired()
