"""The tracing port (`telemetry/tracing.py`) over OpenTelemetry, and a span exporter
that writes JSON lines to a file.

Imported only by the bootstrap of a process that traces (sediment/tracing.py): the
`otel` extra need not be installed otherwise.
"""

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from opentelemetry import propagate, trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.trace import Link, Status, StatusCode

from telemetry.tracing import ERROR_TYPE, Attributes, Carrier, Span, SpanKind

KINDS: Final = {
    SpanKind.INTERNAL: trace.SpanKind.INTERNAL,
    SpanKind.SERVER: trace.SpanKind.SERVER,
    SpanKind.CLIENT: trace.SpanKind.CLIENT,
    SpanKind.PRODUCER: trace.SpanKind.PRODUCER,
    SpanKind.CONSUMER: trace.SpanKind.CONSUMER,
}


class _OtelSpan:
    def __init__(self, span: trace.Span) -> None:
        self._span = span

    def set_attributes(self, attributes: Attributes) -> None:
        self._span.set_attributes(attributes)

    @property
    def ref(self) -> object:
        return self._span.get_span_context()


def _context(parent: object | None) -> object | None:
    """A span context (a ref) or an extracted context (a remote) as a parent context."""
    if isinstance(parent, trace.SpanContext):
        return trace.set_span_in_context(trace.NonRecordingSpan(parent))
    return parent


class OtelTracer:
    """`time.perf_counter()` readings become epoch nanoseconds through one offset taken
    at start: stage spans keep the durations the pipeline measured."""

    def __init__(self, tracer: trace.Tracer) -> None:
        self._tracer = tracer
        self._epoch_offset_ns = time.time_ns() - time.perf_counter_ns()

    @property
    def enabled(self) -> bool:
        return True

    @contextmanager
    def span(
        self,
        name: str,
        attributes: Attributes | None = None,
        *,
        kind: SpanKind = SpanKind.INTERNAL,
        parent: object | None = None,
        links: Sequence[object] = (),
        current: bool = True,
    ) -> Iterator[Span]:
        related = [Link(ref) for ref in links if isinstance(ref, trace.SpanContext)]
        span = self._tracer.start_span(
            name,
            context=_context(parent),  # type: ignore[arg-type]
            kind=KINDS[kind],
            attributes=attributes,
            links=related,
            record_exception=False,
            set_status_on_exception=False,
        )
        try:
            if current:
                with trace.use_span(span, record_exception=False, set_status_on_exception=False):
                    yield _OtelSpan(span)
            else:
                yield _OtelSpan(span)
        except BaseException as exc:
            span.set_attribute(ERROR_TYPE, type(exc).__name__)
            span.set_status(Status(StatusCode.ERROR))
            raise
        finally:
            span.end()

    def remote(self, carrier: Carrier) -> object | None:
        context = propagate.extract(carrier)
        found = trace.get_current_span(context).get_span_context()
        return context if found.is_valid else None

    def current(self) -> object | None:
        context = trace.get_current_span().get_span_context()
        return context if context.is_valid else None

    def finished(self, name: str, start_s: float, end_s: float, attributes: Attributes) -> None:
        if not trace.get_current_span().get_span_context().is_valid:
            return
        start = self._epoch_offset_ns + int(start_s * 1e9)
        span = self._tracer.start_span(name, attributes=attributes, start_time=start)
        span.end(end_time=self._epoch_offset_ns + int(end_s * 1e9))

    def event(self, name: str, at_s: float, attributes: Attributes) -> None:
        span = trace.get_current_span()
        if not span.get_span_context().is_valid:
            return
        span.add_event(name, attributes, timestamp=self._epoch_offset_ns + int(at_s * 1e9))


def current_ids() -> tuple[str, str] | None:
    """The current span's trace and span ids as hex, for log lines; None outside one."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


class JsonLinesExporter(SpanExporter):
    """Each finished span as one JSON line (the console exporter's JSON, unindented),
    appended to `path`: a look at traces without a collector, and what tests read
    from a worker process."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(json.dumps(json.loads(s.to_json())) + "\n" for s in spans)
        with self._lock, self._path.open("a", encoding="utf-8") as out:
            out.write(lines)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True
