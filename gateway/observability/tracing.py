"""OpenTelemetry tracing, off unless `INSIGHT_OTEL_ENABLED` is set (the `otel` extra).

When on, a request gives one trace: the HTTP span (ASGI middleware, continuing a caller's
`traceparent`), the GraphQL spans (strawberry's extension: parse, validate, each resolver of
ours; plain fields, which only read an attribute, get none and stay on the compiled path)
and one span per DynamoDB call (aiobotocore's instrumentation), so a slow field shows which
BatchGetItem or Query it waited on. Spans go to an OTLP/HTTP exporter configured by the
standard `OTEL_*` variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, ...), or to
the tracer provider the host already installed (e.g. `opentelemetry-instrument`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from strawberry.extensions import SchemaExtension

from gateway.settings import SettingsError
from gateway.settings.service import ServiceSettings

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from starlette.applications import Starlette

SERVICE_NAME = "insight-gateway"

SchemaExtensionFactory = type[SchemaExtension] | Callable[[], SchemaExtension]


@dataclass(frozen=True, slots=True)
class Tracing:
    """What tracing adds to the app; the default adds nothing and imports nothing."""

    provider: TracerProvider | None = None
    schema_extensions: tuple[SchemaExtensionFactory, ...] = ()
    #: Whether this process's provider was made here (and so is shut down here).
    owns_provider: bool = False

    @property
    def enabled(self) -> bool:
        return self.provider is not None

    def install(self, app: Starlette) -> None:
        """Add the HTTP span middleware to `app` (outermost, so it times the whole request)."""
        if self.provider is None:
            return
        from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

        app.add_middleware(OpenTelemetryMiddleware, tracer_provider=self.provider)

    async def shutdown(self) -> None:
        """Flush the spans still buffered, when the app stops."""
        if self.provider is not None and self.owns_provider:
            # The exporter's flush is blocking network I/O.
            await asyncio.to_thread(self.provider.shutdown)


def tracing_from_settings(settings: ServiceSettings) -> Tracing:
    """Tracing as configured: nothing unless `otel_enabled`, else the extra's pieces, set up."""
    if not settings.otel_enabled:
        return Tracing()
    try:
        from opentelemetry.instrumentation.aiobotocore import AioBotocoreInstrumentor

        from gateway.observability.resolver_spans import ResolverSpans
    except ImportError as error:
        raise SettingsError(
            "INSIGHT_OTEL_ENABLED needs the otel extra: pip install 'insight-gateway[otel]' "
            f"({error.name} is missing)"
        ) from None
    provider, owned = _tracer_provider()
    # Instrumenting is process-wide and idempotent: every aiobotocore client, one time.
    instrumentor = AioBotocoreInstrumentor()  # type: ignore[no-untyped-call]  # untyped package
    instrumentor.instrument(tracer_provider=provider)
    return Tracing(
        provider=provider,
        schema_extensions=(partial(ResolverSpans, tracer_provider=provider),),
        owns_provider=owned,
    )


def _tracer_provider() -> tuple[TracerProvider, bool]:
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        return current, False
    resource = Resource.create()  # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return provider, True
