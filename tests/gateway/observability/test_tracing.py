"""OpenTelemetry tracing: off by default; when on, one trace holds the HTTP span, the GraphQL
spans and a span per DynamoDB call."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.instrumentation.aiobotocore import AioBotocoreInstrumentor
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gateway.app import create_app
from gateway.cli.demo import ADA, seed_demo
from gateway.http.last_resort import LastResort
from gateway.observability.logs import AccessLog
from gateway.observability.metrics import HttpMetrics
from gateway.observability.tracing import tracing_from_settings
from gateway.settings import Settings, SettingsError
from loaders.dynamodb import Dynamo
from schema.context import build_context
from schema.prepared import PreparedOperations
from schema.principal import Principal
from schema.root import build_schema
from support.fixed_clock import FixedClock
from tests.loaders.test_wire_connections import GET, Script, client_of, dynamo_of, scripted

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture(scope="session")
def exporter() -> InMemorySpanExporter:
    """The process's tracer provider, exporting to memory (a provider is set once a process)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


@pytest.fixture
def spans(exporter: InMemorySpanExporter) -> Iterator[InMemorySpanExporter]:
    exporter.clear()
    yield exporter
    # The instrumentation patches aiobotocore for the whole process: undo it for other tests.
    AioBotocoreInstrumentor().uninstrument()  # type: ignore[no-untyped-call]
    exporter.clear()


def _is_instrumented() -> bool:
    # The instrumentor is a process-wide singleton that knows whether it patched aiobotocore.
    instrumented: bool = AioBotocoreInstrumentor().is_instrumented_by_opentelemetry  # type: ignore[no-untyped-call]
    return instrumented


def test_tracing_is_off_by_default_and_adds_nothing() -> None:
    settings = Settings.from_environ({})
    tracing = tracing_from_settings(settings)
    app = create_app(settings)

    assert settings.otel_enabled is False
    assert not tracing.enabled
    assert tracing.schema_extensions == ()
    # Only the gateway's own access log, last-resort answer and metrics: no tracing middleware.
    assert [getattr(m, "cls", None) for m in app.user_middleware] == [
        AccessLog,
        LastResort,
        HttpMetrics,
    ]
    assert not _is_instrumented()


@pytest.mark.parametrize(("raw", "enabled"), [("true", True), ("1", True), ("off", False)])
def test_the_setting_reads_the_usual_spellings(raw: str, enabled: bool) -> None:
    assert Settings.from_environ({"INSIGHT_OTEL_ENABLED": raw}).otel_enabled is enabled


def test_a_bad_value_names_the_variable() -> None:
    with pytest.raises(SettingsError, match="INSIGHT_OTEL_ENABLED must be true or false"):
        Settings.from_environ({"INSIGHT_OTEL_ENABLED": "sometimes"})


def test_enabled_without_the_extra_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A None entry in sys.modules makes the import fail as if the package were absent.
    monkeypatch.setitem(sys.modules, "opentelemetry.instrumentation.aiobotocore", None)

    with pytest.raises(SettingsError, match=r"pip install 'insight-gateway\[otel\]'"):
        tracing_from_settings(Settings(otel_enabled=True))


async def test_a_query_traces_graphql_and_each_dynamodb_call_in_one_trace(
    spans: InMemorySpanExporter, dynamo: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    tracing = tracing_from_settings(Settings(otel_enabled=True))
    prepared = PreparedOperations()
    schema = build_schema(extensions=tracing.schema_extensions, prepared=prepared)
    context = build_context(dynamo=dynamo, principal=Principal(sub=ADA), clock=clock)
    spans.clear()  # the seeding's own calls are not this query's

    answered = prepared.completion.compiled
    result = await schema.execute(
        "query Traced { viewer { id payday { nextDate } cashAdvanceScores(limit: 2) { score } } }",
        context_value=context,
    )

    assert result.errors is None
    finished: tuple[ReadableSpan, ...] = spans.get_finished_spans()
    names = [span.name for span in finished]
    assert "GraphQL Query: Traced" in names
    # The compiled operation answered: it calls no resolver one by one (its reads go out
    # together), so the trace is the operation's span and each DynamoDB call's.
    assert not [n for n in names if n.startswith("GraphQL Resolving")]
    assert prepared.completion.compiled == answered + 1
    assert "DynamoDB.BatchGetItem" in names
    assert "DynamoDB.Query" in names
    assert len({span.context.trace_id for span in finished}) == 1
    batch_get = next(s for s in finished if s.name == "DynamoDB.BatchGetItem")
    assert batch_get.attributes is not None
    assert batch_get.attributes.get("rpc.method") == "BatchGetItem"


async def test_the_app_continues_the_callers_trace_in_its_http_span(
    spans: InMemorySpanExporter,
) -> None:
    app = create_app(Settings(otel_enabled=True))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        response = await client.get("/healthz", headers={"traceparent": TRACEPARENT})

    assert response.status_code == 200
    http = [s for s in spans.get_finished_spans() if s.name.startswith("GET")]
    assert http, [s.name for s in spans.get_finished_spans()]
    assert {format(s.context.trace_id, "032x") for s in http} == {TRACEPARENT.split("-")[1]}


async def test_a_lean_call_carries_its_spans_context_and_names_its_tables(
    spans: InMemorySpanExporter,
) -> None:
    # As botocore's instrumentation injects the installed propagator's headers (W3C's here,
    # X-Ray's `X-Amzn-Trace-Id` with the X-Ray propagator) into the request it sends.
    script = Script()
    async with scripted(script) as url, client_of(url) as client:
        await dynamo_of(client).call("get_item", **GET)
    [span] = [s for s in spans.get_finished_spans() if s.name == "DynamoDB.GetItem"]
    assert span.attributes is not None
    assert span.attributes.get("aws.dynamodb.table_names") == ("t",)
    assert span.attributes.get("rpc.service") == "DynamoDB"
    assert span.attributes.get("aws.request_id") == "REQ"
    [request] = script.requests
    context = span.context
    sent = (
        f"traceparent: 00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"
    )
    assert sent.encode() in request
