"""One retain through a real Redis and a real `celery worker` process is one trace,
from the HTTP request in this process to the store write in the worker; the recall
that finds it has its stage spans; no content reaches a span in either process. The
trace and the spans docs/tracing.md shows are this test's (SEDIMENT_WRITE_DOCS=1
rewrites them; otherwise the page must match)."""

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sediment.api.app import create_app
from sediment.bootstrap import Runtime, bootstrap
from sediment.settings import Settings
from sediment.tracing import Tracing, start_tracing
from tests.integration.conftest import WorkerEnv, wait_until
from tests.trace_render import Rec, chain, from_file, from_sdk, normalised_json, tree

pytestmark = pytest.mark.integration

MARKER = "qvzmarker"
BANK = "notes"
QUEUE = "sediment"
DOC = Path(__file__).resolve().parents[2] / "docs" / "tracing.md"
ITEM = {
    "text": f"Dana keeps the {MARKER} ledger in Porto.",
    "key": f"dana.{MARKER}",
    "entities": ["Dana"],
    "tags": [f"tag{MARKER}"],
    "occurred_at": "2024-05-01T09:00:00Z",
}
QUERY = {"query": f"where does Dana keep the {MARKER} ledger?", "tags": [f"tag{MARKER}"]}


@pytest.fixture
def tracing() -> Iterator[tuple[Tracing, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    traced = start_tracing(
        "serve", {"OTEL_TRACES_EXPORTER": "none"}, exporters=[exporter], set_global=False
    )
    yield traced, exporter
    traced.shutdown()


def api_runtime(worker_env: WorkerEnv, data_dir: Path, traced: Tracing) -> Runtime:
    """A serve-like process on the workers' Redis and queue, with a store of its own
    (the worker's local store admits one process)."""
    env = worker_env.env
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        mode="standalone",
        redis_url=env["SEDIMENT_REDIS_URL"],
        queue=QUEUE,
        data_dir=data_dir,
        embedder=env["SEDIMENT_EMBEDDER"],  # type: ignore[arg-type]
        allow_volatile_redis=True,
    )
    return bootstrap(settings, traced=traced)


def served(rt: Runtime, traced: Tracing) -> TestClient:
    app = create_app(rt.api_deps)
    traced.instrument_app(app)
    return TestClient(app)


def test_a_retain_is_one_trace_across_the_queue_and_a_recall_has_its_stages(
    worker_env: WorkerEnv, tmp_path: Path, tracing: tuple[Tracing, InMemorySpanExporter]
) -> None:
    traced, exporter = tracing
    spans_file = tmp_path / "worker-spans.jsonl"
    worker_env.env.update(
        {
            "SEDIMENT_QUEUE": QUEUE,
            "SEDIMENT_OTEL": "true",
            "SEDIMENT_OTEL_FILE": str(spans_file),
            "OTEL_TRACES_EXPORTER": "none",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
        }
    )
    worker = worker_env.start("worker")
    rt = api_runtime(worker_env, tmp_path / "api-data", traced)
    with served(rt, traced) as client:
        r = client.post(f"/v1/banks/{BANK}/memories", json={"items": [ITEM]})
        assert r.status_code == 202, r.text

    def written() -> bool:
        return any(s.name == "upsert edge" for s in from_file(spans_file))

    wait_until(written, 120, "the worker's store write span")
    worker_env.stop(worker)
    rt.close()
    retain_spans = from_sdk(exporter.get_finished_spans()) + from_file(spans_file)
    [write] = [s for s in retain_spans if s.name == "upsert edge"]
    path = [s.name for s in chain(write, retain_spans)]
    assert path == [
        "upsert edge",
        "consolidate",
        f"process {QUEUE}",
        "apply_async/sediment.retain.v1",
        f"update_memory {BANK}",
        "POST /v1/banks/{bank_id}/memories",
    ], path
    services = {s.name: s.service for s in chain(write, retain_spans)}
    assert services["consolidate"] == "sediment-worker"
    assert services["POST /v1/banks/{bank_id}/memories"] == "sediment-serve"
    [consolidate] = [s for s in retain_spans if s.name == "consolidate"]
    assert consolidate.attributes["sediment.stored"] == 1
    assert consolidate.attributes["gen_ai.memory.store.id"] == BANK
    [batch_run] = [s for s in retain_spans if s.name == "run/sediment.retain.v1"]
    assert batch_run.span_id in consolidate.links

    exporter.clear()
    owner = bootstrap(worker_env.runtime().settings, traced=traced)
    with served(owner, traced) as client:
        r = client.post(f"/v1/banks/{BANK}/recall", json=QUERY)
        assert r.status_code == 200 and r.json()["results"], r.text
    owner.close()
    recall_spans = from_sdk(exporter.get_finished_spans())
    [search] = [s for s in recall_spans if s.name == f"search_memory {BANK}"]
    stages = {s.name for s in recall_spans if s.parent_id == search.span_id}
    assert {"recall.fetch", "recall.fuse", "recall.current_state", "recall.truncate"} <= stages

    for span in retain_spans + recall_spans:
        assert MARKER not in span.raw, span.raw
    check_doc(retain_spans, recall_spans, consolidate)


SHOWN_ROOTS = re.compile(r"^(POST /v1/|run/sediment\.retain)")


def roots(spans: list[Rec]) -> list[Rec]:
    """The request's trace, and the batch run's (what else the worker did meanwhile,
    such as a ledger sweep, is left out)."""
    found = [s for s in spans if s.parent_id is None and SHOWN_ROOTS.match(s.name)]
    return sorted(found, key=lambda s: s.start)


def example(retain: list[Rec], recall: list[Rec], consolidate: Rec) -> str:
    """The page's generated part: each trace as a tree, and one span as exported."""
    replace = {MARKER: "…"}
    blocks = []
    for title, spans in (("A retain", retain), ("The recall that finds it", recall)):
        for root in roots(spans):
            lines = tree(root, spans, replace)
            blocks.append(f"{title}, trace of `{root.name}`:\n\n```text\n" + "\n".join(lines))
            blocks[-1] += "\n```\n"
    blocks.append(
        "The worker's `consolidate` span as the exporter wrote it (`SEDIMENT_OTEL_FILE`; "
        "`OTEL_TRACES_EXPORTER=console` prints the same JSON), ids and times replaced:\n\n"
        "```json\n" + normalised_json(consolidate, retain, replace) + "\n```\n"
    )
    return "\n".join(blocks)


BEGIN, END = "<!-- example:begin -->", "<!-- example:end -->"


def check_doc(retain: list[Rec], recall: list[Rec], consolidate: Rec) -> None:
    text = DOC.read_text(encoding="utf-8")
    wanted = f"{BEGIN}\n{example(retain, recall, consolidate)}{END}"
    current = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, re.S)
    assert current is not None, f"{DOC} has no {BEGIN} ... {END} block"
    if os.environ.get("SEDIMENT_WRITE_DOCS") == "1":
        DOC.write_text(text.replace(current.group(0), wanted), encoding="utf-8")
        return
    assert current.group(0) == wanted, (
        "docs/tracing.md's example is not what a run produces: "
        "rerun this test with SEDIMENT_WRITE_DOCS=1 and commit the page"
    )
