"""/v1/stats, /metrics and /dashboard over HTTP on an embedded runtime, request ids,
and the recall service's metrics: counted for API recalls, errors included, and sent
from the background thread."""

import re
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from contracts.recall import RecallRequest, RecallResponse
from readmodel.recall.recaller import Recaller
from readmodel.stores.edge import EdgeStore
from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.bootstrap import Runtime
from telemetry.metrics import (
    RECALL_ERRORS,
    RECALL_MS,
    RECALLS,
    BankFilter,
    Defer,
    MetricsSnapshot,
)
from telemetry.recall_logs import RedisRecallLog
from telemetry.redis_series import RedisMetrics
from tests.unit.api_support import AUTH, TOKEN, RecordingPublisher, seeded_runtime

STATIC = Path(__file__).resolve().parents[2] / "sediment" / "api" / "static"


def client_for(rt: Runtime, public: bool = True) -> TestClient:
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=RecordingPublisher(),
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_token=SecretStr(TOKEN),
        metrics=rt.metrics,
        recall_log=rt.recall_log,
        metrics_public=public,
    )
    return TestClient(create_app(deps))


@pytest.fixture
def rt(tmp_path: Path) -> Iterator[Runtime]:
    runtime = seeded_runtime(tmp_path, recall_slow_ms=0.001)
    yield runtime
    runtime.close()


@pytest.fixture
def api(rt: Runtime) -> Iterator[TestClient]:
    """Four recalls made over HTTP (three in b1, one in b2), their effects written."""
    with client_for(rt) as client:
        for bank, query in (("b1", "Alice"), ("b1", "Bob cello"), ("b1", "Seattle"), ("b2", "x")):
            r = client.post(f"/v1/banks/{bank}/recall", json={"query": query}, headers=AUTH)
            assert r.status_code == 200, r.text
        assert rt.recaller.flush(10)
        yield client


def total(stats: Mapping[str, Any], name: str) -> int:
    return sum(c["total"] for c in stats["counters"] if c["name"] == name)


def test_stats_counts_api_recalls_behind_the_token(api: TestClient) -> None:
    assert api.get("/v1/stats").status_code == 401
    stats = api.get("/v1/stats", headers=AUTH).json()
    assert total(stats, RECALLS) == 4 and total(stats, RECALL_ERRORS) == 0
    [recall] = [h for h in stats["latencies"] if h["name"] == RECALL_MS]
    assert recall["count"] == 4 and sum(recall["series"]) == 4
    # The minutes that saw recalls carry a p50; with one minute (the four recalls did
    # not straddle a minute's end) its p50 is the whole window's.
    filled = [p for p in recall["p50_series"] if p is not None]
    assert filled and (len(filled) > 1 or filled[0] == recall["p50_ms"])
    one_bank = api.get("/v1/stats", params={"bank": "b1"}, headers=AUTH).json()
    assert total(one_bank, RECALLS) == 3 and one_bank["bank"] == "b1"
    slow = stats["recent_slow_calls"]
    assert 0 < len(slow) <= 20 and {"operation", "bank", "duration_ms", "timings_ms"} <= set(
        slow[0]
    )
    assert not {"query", "text"} & {k for call in slow for k in call}
    few = api.get("/v1/stats", params={"slow": 2, "bank": "b2"}, headers=AUTH).json()
    assert len(few["recent_slow_calls"]) <= 2
    assert all(c["bank"] == "b2" for c in few["recent_slow_calls"])
    assert api.get("/v1/stats", params={"minutes": 0}, headers=AUTH).status_code == 422


def prometheus(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_needs_no_token_and_says_what_stats_says(api: TestClient) -> None:
    r = api.get("/metrics", params={"minutes": 15})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    found = prometheus(r.text)
    assert found[("sediment_recalls_in_window", ())] == 4
    assert found[("sediment_recall_ms_count_in_window", ())] == 4
    assert found[("sediment_recall_ms_window_bucket", (("le", "+Inf"),))] == 4
    stats = api.get("/v1/stats", params={"minutes": 15}, headers=AUTH).json()
    [recall] = [h for h in stats["latencies"] if h["name"] == RECALL_MS]
    seen = 0
    for bound, n in recall["buckets"]:
        seen += n
        le = "+Inf" if bound == "inf" else f"{bound:g}"
        assert found[("sediment_recall_ms_window_bucket", (("le", le),))] == seen
    assert found[("sediment_recall_ms", (("quantile", "0.5"),))] == recall["p50_ms"]


def test_metrics_takes_the_token_when_not_public(rt: Runtime) -> None:
    with client_for(rt, public=False) as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers=AUTH).status_code == 200


def test_dashboard_is_self_contained_and_strict(api: TestClient) -> None:
    page = api.get("/dashboard")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sorted(assets) == ["dashboard/assets/dashboard.css", "dashboard/assets/dashboard.js"]
    for asset in assets:
        assert api.get("/" + asset).status_code == 200
    shipped = {p.name: p.read_text(encoding="utf-8") for p in STATIC.iterdir()}
    assert set(shipped) == {
        *("dashboard.html", "dashboard.js", "dashboard.css"),
        *("browser.html", "browser.js", "browser.css"),
    }
    for name, text in shipped.items():
        urls = set(re.findall(r"https?://[^\s\"')]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, f"{name} reaches outside the API: {urls}"
        assert "<script>" not in text and "style=" not in text, name
    for script in ("dashboard.js", "browser.js"):
        assert "innerHTML" not in shipped[script], script
        assert "sessionStorage" in shipped[script] and "localStorage" not in shipped[script]


def test_every_response_carries_a_request_id(api: TestClient) -> None:
    fresh = api.get("/healthz").headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", fresh)
    assert api.get("/healthz", headers={"X-Request-ID": "edge-7f3a:1"}).headers["x-request-id"] == (
        "edge-7f3a:1"
    )
    replaced = api.get("/healthz", headers={"X-Request-ID": "not ok"}).headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", replaced)
    big = {"items": [{"text": "x" * 900, "occurred_at": "2024-01-01T00:00:00Z"}] * 2000}
    refused = api.post("/v1/banks/b1/memories", json=big, headers=AUTH)
    assert refused.status_code == 413 and refused.headers["x-request-id"]


class RecallStages:
    """Answers, or raises like a store outage when `failing`."""

    def __init__(self, failing: bool = False) -> None:
        self.failing = failing

    def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        if self.failing:
            raise ConnectionError("store unreachable")
        timings = {"fetch": 1.5, "fuse": 0.5}
        return RecallResponse(bank_id=bank_id, query=request.query, results=[], timings_ms=timings)

    def ranking_settings(self) -> dict[str, str]:
        return {}


def service(
    tmp_path: Path, recaller: RecallStages, metrics: Any
) -> tuple[Recaller, fakeredis.FakeRedis]:
    client = fakeredis.FakeRedis()
    store = EdgeStore(tmp_path / "store")
    store.ensure_schema(8)
    log = RedisRecallLog(client, 100, 100, 60)
    return Recaller(recaller, store, log, 1000.0, metrics=metrics), client


def test_failed_recalls_are_counted_and_still_raise(tmp_path: Path) -> None:
    metrics = RedisMetrics(fakeredis.FakeRedis(), 600)
    recaller = RecallStages()
    svc, _ = service(tmp_path, recaller, metrics)
    svc.recall("b", RecallRequest(query="ok"))
    recaller.failing = True
    with pytest.raises(ConnectionError):
        svc.recall("b", RecallRequest(query="boom"))
    assert svc.flush(10)
    snap: MetricsSnapshot = metrics.snapshot(5, bank="b")
    assert snap.total(RECALLS) == 2 and snap.total(RECALL_ERRORS) == 1
    latency = snap.latency(RECALL_MS)
    assert latency is not None and latency.count == 2
    everything = metrics.snapshot(5)
    stages = {dict(h.labels)["stage"] for h in everything.latencies if h.name == "recall_stage_ms"}
    assert stages == {"fetch", "fuse"}
    svc.close()


class DeferRecorder:
    """A `Metrics` that records where a batch's send runs, and what was written; as the
    port says, only the outermost batch sends (and only its `defer` counts)."""

    def __init__(self) -> None:
        self.sent_on: list[str] = []
        self.writes: list[str] = []
        self.depth = 0

    def incr(self, name: str, n: int = 1, labels: Mapping[str, str] | None = None) -> None:
        self.writes.append(name)

    def observe(self, name: str, value_ms: float, labels: Mapping[str, str] | None = None) -> None:
        self.writes.append(name)

    def gauge(self, name: str, value: float, labels: Mapping[str, str] | None = None) -> None:
        self.writes.append(name)

    def expect(self, tokens: Sequence[str]) -> bool:
        return True

    def incr_once(
        self,
        name: str,
        token: str,
        first: Mapping[str, str],
        again: Mapping[str, str],
        force: bool = False,
    ) -> None:
        self.writes.append(name)

    @contextmanager
    def batch(self, defer: Defer | None = None) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
        if self.depth:
            return

        def send() -> None:
            self.sent_on.append(threading.current_thread().name)

        if defer is None:
            send()
        else:
            defer(send)

    def snapshot(
        self, minutes: int, bank: str | None = None, among: BankFilter | None = None
    ) -> MetricsSnapshot:
        raise NotImplementedError


def test_recall_metrics_are_sent_off_the_callers_thread(tmp_path: Path) -> None:
    metrics = DeferRecorder()
    svc, _ = service(tmp_path, RecallStages(), metrics)
    svc.recall(f"b-{uuid.uuid4().hex[:4]}", RecallRequest(query="q"))
    assert svc.flush(10)
    assert metrics.sent_on and all(n.startswith("recall-effects") for n in metrics.sent_on)
    assert RECALLS in metrics.writes and RECALL_MS in metrics.writes
    svc.close()
