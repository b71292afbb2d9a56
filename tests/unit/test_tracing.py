"""Traces with the SDK's in-memory exporter: an HTTP retain is one trace down to the
store write, a recall has its stage spans and an event per stage, no memory text,
query, tag, entity or key reaches any exported span, and with tracing off nothing is
set up at all."""

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from contracts.recall import RecallRequest
from sediment.api.app import create_app
from sediment.bootstrap import Runtime, bootstrap
from sediment.settings import Settings
from sediment.tracing import Tracing, TracingUnavailable, redacted, start_tracing, wanted
from telemetry.tracing import NOOP_TRACER

MARKER = "zqxmarker"
ITEM = {
    "text": f"Dana keeps the {MARKER} ledger in Porto.",
    "key": f"dana.{MARKER}",
    "entities": [f"Dana{MARKER}"],
    "tags": [f"tag{MARKER}"],
    "metadata": {"source_id": f"src-{MARKER}"},
    "occurred_at": "2024-05-01T09:00:00Z",
}
QUERY = {"query": f"where is the {MARKER} ledger?", "tags": [f"tag{MARKER}"], "explain": True}
RECALL_STAGES = {"recall.fetch", "recall.fuse", "recall.current_state", "recall.truncate"}


@dataclass
class Traced:
    rt: Runtime
    exporter: InMemorySpanExporter
    client: TestClient

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> ReadableSpan:
        found = [s for s in self.spans() if s.name == name]
        assert len(found) == 1, (name, sorted(s.name for s in self.spans()))
        return found[0]


def traced_tracing(exporter: InMemorySpanExporter) -> Tracing:
    return start_tracing(
        "test", {"OTEL_TRACES_EXPORTER": "none"}, exporters=[exporter], set_global=False
    )


@pytest.fixture
def traced(tmp_path: Path) -> Iterator[Traced]:
    exporter = InMemorySpanExporter()
    tracing = traced_tracing(exporter)
    settings = Settings(mode="embedded", data_dir=tmp_path / "data", embedder="hash")
    rt = bootstrap(settings, traced=tracing)
    app = create_app(rt.api_deps)
    tracing.instrument_app(app)
    try:
        with TestClient(app) as client:
            yield Traced(rt, exporter, client)
    finally:
        rt.close()
        tracing.shutdown()


def parent_chain(span: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    """Names from `span` up to its root, within one trace."""
    by_id = {s.context.span_id: s for s in spans}
    names = [span.name]
    while span.parent is not None:
        assert span.parent.trace_id == span.context.trace_id
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def test_an_http_retain_is_one_trace_down_to_the_store_write(traced: Traced) -> None:
    r = traced.client.post("/v1/banks/b1/memories", json={"items": [ITEM]})
    assert r.status_code == 202, r.text
    spans = traced.spans()
    assert len({s.context.trace_id for s in spans}) == 1
    upsert = traced.named("upsert edge")
    chain = parent_chain(upsert, spans)
    assert chain[-1] == "POST /v1/banks/{bank_id}/memories"
    assert "update_memory b1" in chain
    update = traced.named("update_memory b1")
    assert update.attributes is not None
    assert update.attributes["gen_ai.operation.name"] == "update_memory"
    assert update.attributes["gen_ai.memory.store.id"] == "b1"
    assert update.attributes["gen_ai.memory.record.count"] == 1
    assert upsert.attributes is not None and upsert.attributes["db.system.name"] == "qdrant"


def test_a_recall_has_its_stage_spans(traced: Traced) -> None:
    traced.client.post("/v1/banks/b1/memories", json={"items": [ITEM]})
    traced.exporter.clear()
    r = traced.client.post("/v1/banks/b1/recall", json=QUERY)
    assert r.status_code == 200 and r.json()["results"], r.text
    recall = traced.named("search_memory b1")
    assert recall.attributes is not None
    assert recall.attributes["gen_ai.operation.name"] == "search_memory"
    assert recall.attributes["gen_ai.memory.record.count"] == len(r.json()["results"])
    children = [
        s for s in traced.spans() if s.parent and s.parent.span_id == recall.context.span_id
    ]
    names = {s.name for s in children}
    assert names >= RECALL_STAGES, names
    store_calls = [s for s in children if (s.attributes or {}).get("db.system.name") == "qdrant"]
    assert store_calls, names
    stages = [s for s in children if s.name.startswith("recall.")]
    assert [
        s.name.removeprefix("recall.") for s in sorted(stages, key=lambda s: s.start_time or 0)
    ] == [stage["stage"] for stage in r.json()["explain"]]
    for stage in stages:
        assert recall.start_time is not None and stage.start_time is not None
        assert (
            recall.start_time <= stage.start_time <= (stage.end_time or 0) <= (recall.end_time or 0)
        )


def test_a_recall_span_carries_one_event_per_stage(traced: Traced) -> None:
    """The recall's own span says where its time went: an event per stage, in order,
    at the stage's start, with its duration and the candidates it left; the same
    figures as `explain`."""
    traced.client.post("/v1/banks/b1/memories", json={"items": [ITEM]})
    traced.exporter.clear()
    r = traced.client.post("/v1/banks/b1/recall", json=QUERY)
    assert r.status_code == 200, r.text
    recall = traced.named("search_memory b1")
    explained = r.json()["explain"]
    assert [e.name for e in recall.events] == [f"recall.{s['stage']}" for s in explained]
    for event, stage in zip(recall.events, explained, strict=True):
        assert dict(event.attributes or {}) == {
            "duration_ms": stage["ms"],
            "candidates": stage["candidates"],
        }
        assert (recall.start_time or 0) <= event.timestamp <= (recall.end_time or 0)
    assert [e.timestamp for e in recall.events] == sorted(e.timestamp for e in recall.events)
    assert {e.name for e in recall.events} >= RECALL_STAGES


def test_no_content_reaches_any_span(traced: Traced) -> None:
    traced.client.post("/v1/banks/b1/memories", json={"items": [ITEM]})
    traced.client.post("/v1/banks/b1/recall", json={**QUERY, "session_key": f"s-{MARKER}"})
    forget = traced.client.delete(
        "/v1/banks/b1/memories", params={"tag": f"tag{MARKER}", "entity": f"Dana{MARKER}"}
    )
    assert forget.status_code == 202, forget.text
    exported = traced.spans()
    assert {"search_memory b1", "update_memory b1", "delete_memory b1"} <= {
        s.name for s in exported
    }
    http = [s for s in exported if s.name.startswith("DELETE ")]
    assert http and "REDACTED" in json.dumps(dict(http[0].attributes or {}))
    for span in exported:
        assert MARKER not in span.to_json(), span.to_json()


def test_health_store_calls_and_stages_outside_an_operation_make_no_trace(traced: Traced) -> None:
    assert traced.client.get("/healthz").status_code == 200
    traced.rt.store.banks()
    traced.rt.recall_pipeline.recall("b1", RecallRequest(query="anything"))
    assert traced.spans() == []


def test_tracing_off_sets_nothing_up(tmp_path: Path) -> None:
    settings = Settings(mode="embedded", data_dir=tmp_path / "data", embedder="hash")
    rt = Runtime(settings)
    try:
        assert wanted(settings.otel, {}) is False
        assert rt.tracer is NOOP_TRACER
        assert rt.tracing is None
    finally:
        rt.close()


@pytest.mark.parametrize(
    ("setting", "environ", "on"),
    [
        (None, {}, False),
        (None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
        (None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, True),
        (None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, False),
        (True, {}, True),
        (False, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, False),
        (True, {"OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_when_tracing_is_on(setting: bool | None, environ: dict[str, str], on: bool) -> None:
    assert wanted(setting, environ) is on


def test_an_unknown_exporter_stops_the_start() -> None:
    with pytest.raises(TracingUnavailable, match="OTEL_TRACES_EXPORTER"):
        start_tracing("test", {"OTEL_TRACES_EXPORTER": "zipkin"}, set_global=False)
    with pytest.raises(TracingUnavailable, match="grpc"):
        start_tracing("test", {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, set_global=False)


def test_query_values_are_redacted_names_kept() -> None:
    url = f"http://h/v1/banks/b/memories?tag={MARKER}&entity=x%20y&tag=2"
    assert redacted(url, whole_url=True) == (
        "http://h/v1/banks/b/memories?tag=REDACTED&entity=REDACTED&tag=REDACTED"
    )
    assert redacted(f"tag={MARKER}", whole_url=False) == "tag=REDACTED"


def test_the_file_exporter_writes_one_json_line_per_span(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    tracing = start_tracing("test", {"OTEL_TRACES_EXPORTER": "none"}, path, set_global=False)
    with tracing.tracer.span("outer", {"sediment.events": 2}), tracing.tracer.span("inner"):
        pass
    tracing.shutdown()
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [line["name"] for line in lines] == ["inner", "outer"]
    assert lines[0]["parent_id"] == lines[1]["context"]["span_id"]
    assert lines[1]["attributes"] == {"sediment.events": 2}


LOG_SCRIPT = r"""
import json, sys
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from contracts.recall import RecallRequest
from sediment.api.app import create_app
from sediment.bootstrap import bootstrap
from sediment.logs import configure
from sediment.settings import Settings
from sediment.tracing import start_tracing

configure("json", "INFO")
exporter = InMemorySpanExporter()
tracing = start_tracing("test", {"OTEL_TRACES_EXPORTER": "none"}, exporters=[exporter],
                        set_global=False)
rt = bootstrap(Settings(mode="embedded", data_dir=sys.argv[1], embedder="hash"), traced=tracing)
app = create_app(rt.api_deps)
tracing.instrument_app(app)
with TestClient(app) as client:
    client.post("/v1/banks/b1/recall", json={"query": "anything"})
rt.close()
print(json.dumps([[s.name, format(s.context.trace_id, "032x"), format(s.context.span_id, "016x")]
                  for s in exporter.get_finished_spans()]))
"""


def test_log_lines_carry_the_trace_of_their_request(tmp_path: Path) -> None:
    """In a child process: logging is configured process-wide."""
    out = subprocess.run(
        [sys.executable, "-c", LOG_SCRIPT, str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    spans = {name: (trace_id, span_id) for name, trace_id, span_id in json.loads(out.stdout)}
    http_trace, _ = spans["POST /v1/banks/{bank_id}/recall"]
    lines = [json.loads(line) for line in out.stderr.splitlines() if line.startswith("{")]
    [request] = [line for line in lines if line.get("event") == "request"]
    assert request["trace_id"] == http_trace
    assert request["span_id"] in {span_id for _, span_id in spans.values()}
