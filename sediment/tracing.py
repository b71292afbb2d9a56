"""Tracing for a Sediment process: OpenTelemetry, configured by the standard `OTEL_*`
variables, on when `SEDIMENT_OTEL=true`, or when it is unset and an OTLP endpoint is
(`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`);
`OTEL_SDK_DISABLED=true` turns it off whatever else is set.

When on, the process gets one `TracerProvider` (its sampler from `OTEL_TRACES_SAMPLER`,
its resource from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`, else
`sediment-serve`, `sediment-worker`, `sediment-mcp` or `sediment-cli`), the exporters
`OTEL_TRACES_EXPORTER` names (`otlp`, the default, over HTTP; `console`, on stderr
so a stdio MCP server or a `--json` command keeps stdout; `none`), and
`SEDIMENT_OTEL_FILE`'s JSON lines if set; Celery is instrumented (a publish is a
producer span, its context rides in the message headers, a task run is a child of
it), the API app is instrumented when served, and log lines carry `trace_id` and
`span_id`. When off, none of this is imported.

Only the bootstrap calls this (sediment/bootstrap.py); the packages come with the
`otel` extra, and asking for tracing without it stops the process at start.
"""

import importlib.metadata
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from sediment import logs
from telemetry.tracing import Tracer

if TYPE_CHECKING:
    from fastapi import FastAPI
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

ENDPOINTS: Final = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
NEEDS_EXTRA: Final = "tracing needs the otel extra: pip install 'sediment-memory[otel]'"
UNTRACED_URLS: Final = "/healthz,/metrics,/dashboard"
QUERY_ATTRIBUTES: Final = ("http.url", "url.full", "url.query")
"""Where the HTTP instrumentation puts a query string, whose values (tags, entities
of a forget) are content: they are replaced by `REDACTED`, the names kept."""


class TracingUnavailable(RuntimeError):
    """Tracing was asked for and cannot run: the message says what to install or set."""


def wanted(setting: bool | None, environ: Mapping[str, str]) -> bool:
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if setting is not None:
        return setting
    return any(environ.get(name, "").strip() for name in ENDPOINTS)


@dataclass
class Tracing:
    """The process's tracing, once started: `tracer` for Sediment's own spans."""

    provider: "TracerProvider"
    tracer: Tracer
    _instrumented: list[Any] = field(default_factory=list)

    def instrument_app(self, app: "FastAPI") -> None:
        """HTTP server spans for `app` (health, metrics and dashboard requests left out)."""
        from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

        FastAPIInstrumentor.instrument_app(
            app,
            tracer_provider=self.provider,
            server_request_hook=redact_query,
            excluded_urls=UNTRACED_URLS,
            exclude_spans=["receive", "send"],
        )

    def shutdown(self) -> None:
        """Export what is pending, stop instrumenting Celery and logging ids."""
        for instrumentor in self._instrumented:
            instrumentor.uninstrument()
        self._instrumented.clear()
        logs.use_trace_ids(None)
        self.provider.shutdown()


def redact_query(span: Any, scope: Mapping[str, Any]) -> None:
    if not scope.get("query_string") or not span.is_recording():
        return
    recorded = getattr(span, "attributes", None) or {}
    for key in QUERY_ATTRIBUTES:
        value = recorded.get(key)
        if isinstance(value, str):
            span.set_attribute(key, redacted(value, whole_url=key != "url.query"))


def redacted(value: str, whole_url: bool) -> str:
    """Every query value replaced by `REDACTED`, the parameter names kept."""
    parts = urlsplit(value) if whole_url else None
    query = parts.query if parts is not None else value
    names = [(name, "REDACTED") for name, _ in parse_qsl(query, keep_blank_values=True)]
    safe = urlencode(names)
    return urlunsplit(parts._replace(query=safe)) if parts is not None else safe


def start_tracing(
    service: str,
    environ: Mapping[str, str],
    file: Path | None = None,
    exporters: Sequence["SpanExporter"] = (),
    set_global: bool = True,
) -> Tracing:
    """`exporters` are exported to as each span ends (tests); the others in batches."""
    try:
        from opentelemetry import trace
        from opentelemetry.instrumentation.celery import CeleryInstrumentor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

        from telemetry.otel import JsonLinesExporter, OtelTracer, current_ids
    except ImportError as exc:
        raise TracingUnavailable(f"{NEEDS_EXTRA} ({exc.name} is missing)") from exc
    provider = TracerProvider(resource=_resource(service))
    for exporter in [*_configured(environ), *([JsonLinesExporter(file)] if file else [])]:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    for exporter in exporters:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    if set_global:
        trace.set_tracer_provider(provider)
    celery = CeleryInstrumentor()  # type: ignore[no-untyped-call]
    celery.instrument(tracer_provider=provider)
    logs.use_trace_ids(current_ids)
    tracer = OtelTracer(provider.get_tracer("sediment", _version()))
    return Tracing(provider, tracer, [celery])


def _configured(environ: Mapping[str, str]) -> list["SpanExporter"]:
    """The exporters `OTEL_TRACES_EXPORTER` names (comma-separated; default `otlp`)."""
    names = [n.strip().lower() for n in environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",")]
    out: list[SpanExporter] = []
    for name in [n for n in names if n and n != "none"]:
        if name == "console":
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            out.append(ConsoleSpanExporter(out=sys.stderr))
        elif name == "otlp":
            out.append(_otlp(environ))
        else:
            raise TracingUnavailable(
                f"OTEL_TRACES_EXPORTER={name!r} is not supported here: use otlp, console or none"
            )
    return out


def _otlp(environ: Mapping[str, str]) -> "SpanExporter":
    protocol = environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "")
    )
    if protocol.strip() == "grpc":
        raise TracingUnavailable(
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the otel extra exports OTLP over HTTP "
            "(http/protobuf, port 4318); unset it and point the endpoint at port 4318"
        )
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as exc:
        raise TracingUnavailable(f"{NEEDS_EXTRA} ({exc.name} is missing)") from exc
    return OTLPSpanExporter()


def _resource(service: str) -> Any:
    """OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES' service.name if given, else ours."""
    from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource

    resource = Resource.create({SERVICE_VERSION: _version()})
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: f"sediment-{service}"}))
    return resource


def _version() -> str:
    try:
        return importlib.metadata.version("sediment-memory")
    except importlib.metadata.PackageNotFoundError:
        return "0"
