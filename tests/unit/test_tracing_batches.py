"""A batch of retain messages from several producers: each message's `process` span is
a child of its own producer's span, the consolidation is a child of the first and
linked to the others, and its store writes are its children (worker/traces.py)."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry import propagate
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sediment.bootstrap import Runtime, bootstrap
from sediment.settings import Settings
from sediment.tracing import start_tracing
from tests.helpers import event
from worker.batching import Delivery
from worker.celery_app import RETAIN_TASK
from worker.tasks import handle


@pytest.fixture
def traced(tmp_path: Path) -> Iterator[tuple[Runtime, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    tracing = start_tracing(
        "worker", {"OTEL_TRACES_EXPORTER": "none"}, exporters=[exporter], set_global=False
    )
    settings = Settings(mode="embedded", data_dir=tmp_path / "data", embedder="hash")
    rt = bootstrap(settings, traced=tracing)
    yield rt, exporter
    rt.close()
    tracing.shutdown()


def published(rt: Runtime, name: str) -> dict[str, str]:
    """The headers a producer's message carries, from within its span."""
    carrier: dict[str, str] = {}
    with rt.tracer.span(name):
        propagate.inject(carrier)
    return carrier


def one(spans: list[ReadableSpan], name: str) -> ReadableSpan:
    [found] = [s for s in spans if s.name == name]
    return found


def test_a_batch_from_three_producers(traced: tuple[Runtime, InMemorySpanExporter]) -> None:
    rt, exporter = traced
    deliveries = [
        Delivery(
            [event(f"Note {i} about the garden.", i).model_dump(mode="json")],
            task_id=f"task-{i}",
            carrier=published(rt, f"producer {i}"),
            queue="sediment",
        )
        for i in range(3)
    ]
    handle(deliveries, RETAIN_TASK, rt.worker_deps)
    spans = list(exporter.get_finished_spans())
    producers = [one(spans, f"producer {i}") for i in range(3)]
    processes = [s for s in spans if s.name == "process sediment"]
    assert len(processes) == 3
    by_parent = {p.parent.span_id: p for p in processes if p.parent is not None}
    for producer in producers:
        process = by_parent[producer.context.span_id]
        assert process.context.trace_id == producer.context.trace_id
        assert process.attributes is not None
        assert process.attributes["messaging.batch.message_count"] == 3
    consolidate = one(spans, "consolidate")
    first = by_parent[producers[0].context.span_id]
    assert consolidate.parent is not None
    assert consolidate.parent.span_id == first.context.span_id
    linked = {link.context.span_id for link in consolidate.links}
    assert linked == {by_parent[p.context.span_id].context.span_id for p in producers[1:]}
    assert consolidate.attributes is not None
    assert consolidate.attributes["sediment.stored"] == 3
    upsert = one(spans, "upsert edge")
    assert upsert.parent is not None and upsert.parent.span_id == consolidate.context.span_id


def test_a_message_without_a_trace_context_is_traced_in_the_batch(
    traced: tuple[Runtime, InMemorySpanExporter],
) -> None:
    rt, exporter = traced
    payload = event("A note from an untraced producer.").model_dump(mode="json")
    with rt.tracer.span("run/sediment.retain.v1") as run:
        handle([Delivery([payload], queue="sediment")], RETAIN_TASK, rt.worker_deps)
    spans = list(exporter.get_finished_spans())
    process = one(spans, "process sediment")
    assert process.parent is not None and process.parent.span_id == run.ref.span_id  # type: ignore[attr-defined]
    consolidate = one(spans, "consolidate")
    assert [link.context.span_id for link in consolidate.links] == [run.ref.span_id]  # type: ignore[attr-defined]
