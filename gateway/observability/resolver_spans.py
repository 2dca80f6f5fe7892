"""strawberry's OpenTelemetry extension with a span per resolver of ours, and nothing at all
for plain fields (imported only with tracing on: it needs the `otel` extra).

strawberry's extension is field middleware whose `resolve` is a coroutine function: every
field, a plain attribute read included, becomes a coroutine to await (about six times a
plain field's cost) even though it gets no span. Here a field resolved by strawberry's
default resolver is handed on as is, which also lets an operation's compiled form
(`schema.execution`) answer it with tracing on. The compiled form resolves no field one by
one (its reads go out together), so its trace is the operation's span and each DynamoDB
call's. On graphql-core's path every other field of ours gets strawberry's own span. The
operation's span is the current span while it executes, so that the plan's DynamoDB calls
(sent by the loaders, outside any resolver) are its children, in the request's trace, over
HTTP or in a subscription's re-read alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from graphql import GraphQLResolveInfo
from opentelemetry import context, trace
from strawberry.extensions import LifecycleStep
from strawberry.extensions.tracing import OpenTelemetryExtension
from strawberry.extensions.tracing.utils import should_skip_tracing

from schema.execution.executor import PassesPlainFields


class ResolverSpans(OpenTelemetryExtension, PassesPlainFields):
    def on_execute(self) -> Iterator[None]:
        operation = self._span_holder.get(LifecycleStep.OPERATION)
        if operation is None:
            yield
            return
        token = context.attach(trace.set_span_in_context(operation))
        try:
            yield
        finally:
            context.detach(token)

    def resolve(
        self,
        _next: Callable[..., Any],
        root: Any,
        info: GraphQLResolveInfo[Any],
        *args: str,
        **kwargs: Any,
    ) -> Any:
        if should_skip_tracing(_next, info):
            return _next(root, info, *args, **kwargs)
        return super().resolve(_next, root, info, *args, **kwargs)
