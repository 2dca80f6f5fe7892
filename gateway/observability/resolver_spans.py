"""strawberry's OpenTelemetry extension with a span per resolver of ours, and nothing at all
for plain fields (imported only with tracing on: it needs the `otel` extra).

strawberry's extension is field middleware whose `resolve` is a coroutine function: every
field, a plain attribute read included, becomes a coroutine to await (about six times a
plain field's cost) even though it gets no span. Here a field resolved by strawberry's
default resolver is handed on as is, which also lets the compiled completion path
(`schema.execution`) complete plain objects with tracing on. A User's fields are planned:
read together by the plan, not resolved one by one, so they have no span of their own (the
trace shows the root field's span and each DynamoDB call's). Every other field of ours gets
strawberry's own span, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphql import GraphQLResolveInfo
from strawberry.extensions.tracing import OpenTelemetryExtension
from strawberry.extensions.tracing.utils import should_skip_tracing

from schema.execution.executor import PassesPlainFields


class ResolverSpans(OpenTelemetryExtension, PassesPlainFields):
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
