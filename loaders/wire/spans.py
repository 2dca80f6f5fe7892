"""A span per lean call, as aiobotocore's OpenTelemetry instrumentation gives one per
botocore call (`DynamoDB.<Operation>`, kind CLIENT, the `rpc.*` and `aws.*` attributes),
so that a trace shows the same DynamoDB calls on either path. Nothing at all unless an
OpenTelemetry SDK tracer provider is installed (the `otel` extra, `INSIGHT_OTEL_ENABLED`):
then the check is one `isinstance`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:
    from opentelemetry import propagate, trace
except ImportError:  # the otel extra is not installed
    trace = None  # type: ignore[assignment]
    propagate = None  # type: ignore[assignment]

__all__ = ["NO_SPAN", "CallSpan", "call_span", "recording"]


class CallSpan:
    """What the call tells its span: the answer's status, request id and retries."""

    __slots__ = ("_span",)

    def __init__(self, span: Any) -> None:
        self._span = span

    def trace_headers(self) -> str:
        """The headers botocore's instrumentation injects into a request while its span is
        current (the installed propagator's: `X-Amzn-Trace-Id` with the X-Ray one,
        `traceparent` with W3C's), as HTTP header lines; "" for no span."""
        if self._span is None:
            return ""
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
        return "".join(f"{name}: {value}\r\n" for name, value in carrier.items())

    def answered(self, status: int, request_id: str, retries: int) -> None:
        if self._span is not None:
            self._span.set_attribute("http.status_code", status)
            self._span.set_attribute("aws.request_id", request_id)
            self._span.set_attribute("retry_attempts", retries)


#: The span of a call that no tracer records.
NO_SPAN = CallSpan(None)


def recording() -> bool:
    """Whether a tracer provider is installed (else a call need not enter `call_span`)."""
    if trace is None:
        return False
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


@contextmanager
def call_span(operation: str, region: str, tables: list[str]) -> Iterator[CallSpan]:
    """The call's span; entered only when `recording()`."""
    tracer = trace.get_tracer("loaders.wire")
    attributes = {
        "rpc.system": "aws-api",
        "rpc.service": "DynamoDB",
        "rpc.method": operation,
        "aws.region": region,
        "db.system": "dynamodb",
        # The instrumentation's DynamoDB extension names the tables a call reads.
        "aws.dynamodb.table_names": tables,
    }
    with tracer.start_as_current_span(
        f"DynamoDB.{operation}", kind=trace.SpanKind.CLIENT, attributes=attributes
    ) as span:
        yield CallSpan(span)
