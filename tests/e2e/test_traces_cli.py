"""Tracing as a user turns it on, in the processes they run: `sediment serve` (a retain
through its own worker, one trace), `sediment mcp` over stdio (the MCP SDK's
`tools/call` span, Sediment's memory operation with its stage events and the store
calls under it), the CLI with
the console exporter (spans on stderr, stdout left to the answer),
and the same commands with tracing off: no span file, no exporter, no SDK imported."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.e2e.cli import sediment
from tests.e2e.mcp_session import McpSession, rows, stdio
from tests.e2e.test_http import eventually, running
from tests.trace_render import chain, from_file

MARKER = "mcpmarkerq"
ITEM = {"text": f"Erin stores the {MARKER} key in Oslo.", "occurred_at": "2024-01-01T09:00:00Z"}
TRACED = {"SEDIMENT_OTEL": "true", "OTEL_TRACES_EXPORTER": "none"}


def test_an_mcp_tool_call_is_traced_down_to_the_store(tmp_path: Path) -> None:
    spans_file = tmp_path / "spans.jsonl"
    env = {**TRACED, "SEDIMENT_OTEL_FILE": str(spans_file)}
    with McpSession(lambda: stdio(tmp_path, "--bank", "notes", env=env)) as session:
        session.ok("retain", items=[ITEM])
        assert rows(session.call("recall", query=f"where is the {MARKER} key?"))
    spans = from_file(spans_file)
    [write] = [s for s in spans if s.name == "upsert edge"]
    assert [s.name for s in chain(write, spans)] == [
        "upsert edge",
        "update_memory notes",
        "tools/call retain",
    ]
    [recall] = [s for s in spans if s.name == "search_memory notes"]
    assert [s.name for s in chain(recall, spans)] == ["search_memory notes", "tools/call recall"]
    events = json.loads(recall.raw)["events"]
    assert {"recall.fetch", "recall.truncate"} <= {e["name"] for e in events}
    assert all(set(e["attributes"]) == {"duration_ms", "candidates"} for e in events)
    assert {s.service for s in spans} == {"sediment-mcp"}
    assert all(MARKER not in s.raw for s in spans)


def test_the_console_exporter_leaves_stdout_to_the_answer(tmp_path: Path) -> None:
    sediment(tmp_path, "ingest", str(events_file(tmp_path)), "--bank", "b")
    env = {"SEDIMENT_OTEL": "true", "OTEL_TRACES_EXPORTER": "console"}
    out = sediment(tmp_path, "recall", "where is the key?", "--bank", "b", "--json", env=env)
    assert json.loads(out.stdout)["results"]
    spans = console_spans(out.stderr)
    assert "search_memory b" in {s["name"] for s in spans}
    assert {s["resource"]["attributes"]["service.name"] for s in spans} == {"sediment-cli"}


def test_tracing_off_writes_and_imports_nothing(tmp_path: Path) -> None:
    spans_file = tmp_path / "spans.jsonl"
    sediment(tmp_path, "ingest", str(events_file(tmp_path)), "--bank", "b")
    env = {"SEDIMENT_OTEL_FILE": str(spans_file), "OTEL_TRACES_EXPORTER": "console"}
    out = sediment(tmp_path, "recall", "where is the key?", "--bank", "b", env=env)
    assert not spans_file.exists()
    assert '"trace_id"' not in out.stderr and "SpanKind" not in out.stderr
    loaded = subprocess.run(
        [sys.executable, "-c", IMPORTS, str(tmp_path / "fresh")],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    assert json.loads(loaded.stdout) == [], loaded.stdout


IMPORTS = r"""
import json, sys
from contracts.recall import RecallRequest
from sediment.bootstrap import bootstrap
from sediment.settings import Settings
import sediment.cli, sediment.serve, sediment.api.app

rt = bootstrap(Settings(mode="embedded", data_dir=sys.argv[1], embedder="hash"))
rt.recaller.recall("b", RecallRequest(query="where is the key?"))
rt.close()
# redis-py imports opentelemetry.sdk.metrics by itself whenever the SDK is installed;
# the tracing SDK, the instrumentations, the exporters and Sediment's adapter are ours.
prefixes = ("opentelemetry.sdk.trace", "opentelemetry.instrumentation",
            "opentelemetry.exporter", "telemetry.otel")
print(json.dumps(sorted(m for m in sys.modules if m.startswith(prefixes))))
"""


def events_file(tmp: Path) -> Path:
    path = tmp / "events.jsonl"
    path.write_text(json.dumps(ITEM) + "\n", encoding="utf-8")
    return path


def console_spans(stderr: str) -> list[dict[str, Any]]:
    """The console exporter's indented JSON objects, among the log lines."""
    decoder = json.JSONDecoder()
    spans, at = [], 0
    while (start := stderr.find('{\n    "name"', at)) >= 0:
        span, at = decoder.raw_decode(stderr, start)
        spans.append(span)
    return spans


def test_an_embedded_serve_traces_a_retain_through_its_own_worker(tmp_path: Path) -> None:
    """`sediment serve` as a user runs it: its HTTP span, the publish to its in-memory
    queue, its worker thread's consolidation and the store write, one trace; and the
    request's log line carries that trace's id."""
    spans_file = tmp_path / "spans.jsonl"
    env = {
        **os.environ,
        **TRACED,
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_OTEL_FILE": str(spans_file),
        "OTEL_BSP_SCHEDULE_DELAY": "100",
    }
    with running(env, tmp_path) as srv:
        r = srv.post("/v1/banks/notes/memories", {"items": [ITEM]})
        assert r.status_code == 202, r.text

        def written() -> bool:
            return any(s.name == "upsert edge" for s in from_file(spans_file))

        eventually(written, "the store write span", timeout=120)
        log = srv.log.read_text(encoding="utf-8")
    spans = from_file(spans_file)
    [write] = [s for s in spans if s.name == "upsert edge"]
    path = chain(write, spans)
    assert [s.name for s in path] == [
        "upsert edge",
        "consolidate",
        "process sediment",
        "apply_async/sediment.retain.v1",
        "update_memory notes",
        "POST /v1/banks/{bank_id}/memories",
    ]
    assert {s.service for s in path} == {"sediment-serve"}
    trace_id = path[-1].trace_id.removeprefix("0x")
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line.get("event") == "request"]
    assert any(line.get("trace_id") == trace_id for line in requests), requests
    assert all(MARKER not in s.raw for s in spans)
