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

The spans are strawberry's (names, kinds, attributes), started here through OpenTelemetry's
API and strawberry's hooks; the operation's span is this extension's own to keep.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from inspect import isawaitable
from typing import Any

from graphql import GraphQLResolveInfo
from opentelemetry import context, trace
from opentelemetry.trace import SpanKind, TracerProvider
from strawberry.extensions.tracing import OpenTelemetryExtension
from strawberry.extensions.tracing.utils import should_skip_tracing

from schema.execution.executor import PassesPlainFields

__all__ = ["ResolverSpans"]


class ResolverSpans(OpenTelemetryExtension, PassesPlainFields):
    def __init__(self, *, tracer_provider: TracerProvider | None = None) -> None:
        super().__init__(tracer_provider=tracer_provider)
        self.tracer = trace.get_tracer("strawberry", tracer_provider=tracer_provider)
        #: The operation's span as a context, the parent of every other span of it.
        self.operation: context.Context | None = None

    def on_operation(self) -> Generator[None, None, None]:
        execution = self.execution_context
        # The name as given: before parsing there is no first operation to fall back on.
        named = execution.operation_name
        span = self.tracer.start_span(
            f"GraphQL Query: {named}" if named else "GraphQL Query", kind=SpanKind.SERVER
        )
        span.set_attribute("component", "graphql")
        if execution.query:
            span.set_attribute("query", execution.query)
        self.operation = trace.set_span_in_context(span)
        yield
        if not named and execution.operation_name:
            span.update_name(f"GraphQL Query: {execution.operation_name}")
        span.end()

    def on_parse(self) -> Generator[None, None, None]:
        span = self.tracer.start_span("GraphQL Parsing", context=self.operation)
        yield
        span.end()

    def on_validate(self) -> Generator[None, None, None]:
        span = self.tracer.start_span("GraphQL Validation", context=self.operation)
        yield
        span.end()

    def on_execute(self) -> Iterator[None]:
        # strawberry executes inside the operation, whose hook has set its span.
        assert self.operation is not None
        token = context.attach(self.operation)
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
        return self.traced(_next, root, info, *args, **kwargs)

    async def traced(
        self,
        _next: Callable[..., Any],
        root: Any,
        info: GraphQLResolveInfo[Any],
        *args: str,
        **kwargs: Any,
    ) -> Any:
        with self.tracer.start_as_current_span(
            f"GraphQL Resolving: {info.field_name}", context=self.operation
        ) as span:
            self.add_tags(span, info, kwargs)
            result = _next(root, info, *args, **kwargs)
            if isawaitable(result):
                result = await result
            return result
