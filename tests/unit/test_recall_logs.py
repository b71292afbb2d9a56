"""Recall logs on fakeredis: impressions, slow calls and last-recall snapshots keep
metadata only, stay capped and expire; their failures never fail a recall; batch
marking of a last recall is safe and idempotent."""

import json
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import fakeredis
import pytest

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.config import RecallConfig
from readmodel.recall.fusion import DEFAULT_WEIGHTS
from readmodel.recall.notes import fusion_note
from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.recaller import Recaller
from readmodel.recall.rerank import Reranker, RerankStage
from readmodel.stores.edge import EdgeStore
from telemetry.metrics import RECALLS, merged
from telemetry.recall_logs import (
    IMPRESSIONS_STREAM,
    SLOW_STREAM,
    Impression,
    RedisRecallLog,
    SlowCall,
    last_recall_key,
)
from telemetry.redis_series import RedisMetrics
from tests.fakes import NoLocks
from tests.helpers import event, mid
from worker.consolidation.consolidator import Consolidator, consolidate

EMB = HashEmbedder(64)
QUERY = "Where does Alice live these days?"
TEXTS = ["Alice lives in Boston.", "Alice lives in Seattle.", "Alice keeps bees on the roof."]
SECRET_WORDS = ["Alice", "Boston", "Seattle", "bees", "roof", "Where", "these days"]
TTL_S = 600


class FailingTouchStore(EdgeStore):
    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        raise ConnectionError("store down")


@dataclass
class Setup:
    store: EdgeStore
    redis: fakeredis.FakeRedis
    log: RedisRecallLog
    service: Recaller


def make(tmp_path: Path, store_cls: type[EdgeStore] = EdgeStore, slow_ms: float = 1e6) -> Setup:
    store = store_cls(tmp_path / "store")
    store.ensure_schema(EMB.dimension)
    consolidate(
        [event(t, day, key="alice.city" if "lives" in t else None) for day, t in enumerate(TEXTS)],
        Consolidator(store, EMB, NoLocks()),
    )
    client = fakeredis.FakeRedis()
    log = RedisRecallLog(client, impressions_maxlen=10, slow_maxlen=10, last_recall_ttl_s=TTL_S)
    return Setup(store, client, log, Recaller(RecallPipeline(store, EMB), store, log, slow_ms))


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    s = make(tmp_path)
    yield s
    s.service.close()
    s.store.close()


def stream_values(client: fakeredis.FakeRedis, stream: str) -> list[str]:
    return [
        value.decode()
        for _, fields in client.xrange(stream)
        for value in list(fields.values()) + list(fields.keys())
    ]


def assert_no_content(values: list[str]) -> None:
    assert values
    for value in values:
        for secret in [QUERY, *TEXTS, *SECRET_WORDS]:
            assert secret.lower() not in value.lower(), (secret, value)


def test_impression_holds_ids_ranks_and_no_text(setup: Setup) -> None:
    response = setup.service.recall("b1", RecallRequest(query=QUERY, session_key="s1"))
    assert setup.service.flush(10)
    assert_no_content(stream_values(setup.redis, IMPRESSIONS_STREAM))
    [entry] = setup.log.impressions(5)
    assert entry["bank"] == "b1" and entry["query_len"] == str(len(QUERY))
    shown = json.loads(entry["results"])
    assert [r.id for r in response.results] == [uuid.UUID(x["id"]) for x in shown]
    assert [x["rank"] for x in shown] == list(range(1, len(shown) + 1))
    assert "fetch" in entry["timings_ms"] and '"history":false' in entry["settings"]


def test_slow_recall_entry_holds_metadata_only(tmp_path: Path) -> None:
    s = make(tmp_path, slow_ms=0.0001)
    s.service.recall("b1", RecallRequest(query=QUERY, explain=True, limit=2))
    assert s.service.flush(10)
    assert_no_content(stream_values(s.redis, SLOW_STREAM))
    [entry] = s.log.slow_calls(5)
    assert entry["operation"] == "recall"
    assert '"limit":2' in entry["sizes"] and '"candidates"' in entry["sizes"]
    s.service.close()
    s.store.close()


def test_timed_operations_are_logged_only_when_slow(setup: Setup) -> None:
    setup.service.slow_calls.observe("api.retain", 5.0, "b1", {"items": 3})
    setup.service.slow_calls.observe("api.retain", 2e6, "b1", {"items": 3})
    assert setup.service.flush(10)
    [entry] = setup.log.slow_calls(5)
    assert (entry["operation"], entry["sizes"]) == ("api.retain", '{"items":3}')


def test_streams_are_capped(setup: Setup) -> None:
    now = datetime.now(UTC)
    for i in range(500):
        setup.log.add_impression(Impression(now, "b", None, "h", 1, 1.0, ()))
        setup.log.add_slow(SlowCall(now, f"op{i}", 1.0))
    for stream in (IMPRESSIONS_STREAM, SLOW_STREAM):
        assert 10 <= setup.redis.xlen(stream) <= 110


def test_last_recall_snapshot_expires_and_needs_a_session(setup: Setup) -> None:
    response = setup.service.recall("b1", RecallRequest(query=QUERY, session_key="s1"))
    setup.service.recall("b1", RecallRequest(query=QUERY))
    snapshot = setup.service.last_recall("b1", "s1")
    assert snapshot is not None
    assert [r.id for r in snapshot.results] == [r.id for r in response.results]
    assert [r.rank for r in snapshot.results] == list(range(1, len(response.results) + 1))
    assert 0 < setup.redis.ttl(last_recall_key("b1", "s1")) <= TTL_S
    assert_no_content([setup.redis.get(last_recall_key("b1", "s1")).decode()])
    assert setup.service.last_recall("b2", "s1") is None
    assert setup.redis.keys("sediment:last_recall:*") == [last_recall_key("b1", "s1").encode()]


def test_recall_marks_returned_memories_accessed(setup: Setup) -> None:
    response = setup.service.recall("b1", RecallRequest(query=QUERY, limit=1))
    assert setup.service.flush(10)
    [shown] = setup.store.fetch("b1", [response.results[0].id])
    assert shown.record.last_accessed_at is not None
    others = setup.store.fetch("b1", [mid(event(TEXTS[2], 2))])
    assert all(p.record.last_accessed_at is None for p in others if p.record.id != shown.record.id)


def test_failing_side_effect_never_fails_recall(tmp_path: Path) -> None:
    s = make(tmp_path, store_cls=FailingTouchStore)
    response = s.service.recall("b1", RecallRequest(query=QUERY, session_key="s"))
    assert response.results
    assert s.service.flush(10)
    assert len(s.log.impressions(5)) == 1 and s.service.last_recall("b1", "s") is not None
    s.service.close()
    s.store.close()


class BlockingLog(RedisRecallLog):
    def __init__(self, gate: threading.Event) -> None:
        super().__init__(fakeredis.FakeRedis(), 10, 10, TTL_S)
        self.gate = gate

    def add_impression(self, impression: Impression) -> None:
        self.gate.wait(10)
        super().add_impression(impression)


def test_side_effects_run_off_the_hot_path(setup: Setup) -> None:
    gate = threading.Event()
    log = BlockingLog(gate)
    service = Recaller(RecallPipeline(setup.store, EMB), setup.store, log, 1e6)
    for _ in range(3):
        assert service.recall("b1", RecallRequest(query=QUERY)).results
    assert log.impressions(5) == []
    gate.set()
    assert service.flush(10)
    assert len(log.impressions(5)) == 3
    service.close()


def test_no_useful_ids_marks_nothing(setup: Setup) -> None:
    setup.service.recall("b1", RecallRequest(query=QUERY, session_key="s"))
    assert setup.service.mark_last_recall("b1", "s", []) == []


def test_useful_ids_mark_the_rest_with_stable_event_ids(setup: Setup) -> None:
    response = setup.service.recall("b1", RecallRequest(query=QUERY, session_key="s"))
    ids = [r.id for r in response.results]
    assert len(ids) >= 2
    events = setup.service.mark_last_recall("b1", "s", [ids[0]])
    assert [e.memory_id for e in events] == ids[1:]
    assert {(e.vote, e.bank_id, e.session_key) for e in events} == {("not_useful", "b1", "s")}
    again = setup.service.mark_last_recall("b1", "s", [ids[0]])
    assert [e.event_id for e in again] == [e.event_id for e in events]


def test_marking_without_a_matching_recall_marks_nothing(setup: Setup) -> None:
    response = setup.service.recall("b1", RecallRequest(query=QUERY, session_key="s"))
    assert setup.service.mark_last_recall("b1", "s", [uuid.uuid4()]) == []
    assert setup.service.mark_last_recall("b1", "other", [response.results[0].id]) == []
    assert setup.service.mark_last_recall("b2", "s", [response.results[0].id]) == []


class ConstantReranker:
    name = "constant"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        return [0.5] * len(texts)


@pytest.mark.parametrize(
    ("config", "reranker", "expected"),
    [
        (
            RecallConfig(),
            None,
            {"decay_enabled": False, "relevance_gate": 0.0, "query_expansion": False},
        ),
        (
            RecallConfig(decay_enabled=True, decay_half_life_days=7.0, relevance_gate=0.25),
            None,
            {"decay_enabled": True, "decay_half_life_days": 7.0, "relevance_gate": 0.25},
        ),
        (
            RecallConfig(query_expansion=True, recency_bias="auto", temporal_weight=0.2),
            ConstantReranker(),
            {
                "query_expansion": True,
                "recency_bias_default": "auto",
                "temporal_weight": 0.2,
                "reranker": "constant",
            },
        ),
    ],
)
def test_impression_records_the_deployment_settings_that_rank(
    setup: Setup, config: RecallConfig, reranker: Reranker | None, expected: dict[str, object]
) -> None:
    stage = None if reranker is None else RerankStage(reranker, 1000, 60)
    service = Recaller(RecallPipeline(setup.store, EMB, config, stage), setup.store, setup.log, 1e6)
    service.recall("b1", RecallRequest(query=QUERY, limit=2))
    assert service.flush(10)
    settings = json.loads(setup.log.impressions(1)[0]["settings"])
    assert {k: settings[k] for k in expected} == expected
    assert settings["reranker"] == expected.get("reranker", "off")
    assert settings["limit"] == 2 and settings["fusion"] == fusion_note(DEFAULT_WEIGHTS)
    service.close()


class CountingTouchStore(EdgeStore):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.touches: list[tuple[str, list[uuid.UUID], datetime]] = []

    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        self.touches.append((bank_id, list(ids), at))
        super().touch(bank_id, ids, at)


def test_recalls_close_together_share_one_touch_and_one_metrics_send(tmp_path: Path) -> None:
    """Recalls within the effects thread's window: each one's logs, one last-access update
    for the bank (every id shown, the latest time) and one metrics pipeline counting all."""
    s = make(tmp_path, store_cls=CountingTouchStore)
    metrics = RedisMetrics(fakeredis.FakeRedis(), TTL_S)
    sent: list[object] = []
    flush = RedisMetrics._flush
    with_spy = Recaller(RecallPipeline(s.store, EMB), s.store, s.log, 1e6, metrics=metrics)
    gate = threading.Event()
    times = iter([datetime(2024, 6, 1, 12, 0, i, tzinfo=UTC) for i in range(5)])
    with_spy._clock = lambda: next(times)  # type: ignore[method-assign]

    def spy(self: RedisMetrics, pending: object) -> None:
        sent.append(pending)
        flush(self, pending)  # type: ignore[arg-type]

    try:
        RedisMetrics._flush = spy  # type: ignore[method-assign]
        # hold the effects thread until all recalls are in
        with_spy._background.submit("hold", None, partial(gate.wait, 10))
        shown = set()
        for limit in (1, 2, 3):
            response = with_spy.recall("b1", RecallRequest(query=QUERY, limit=limit))
            shown |= {r.id for r in response.results}
        gate.set()
        assert with_spy.flush(10)
    finally:
        RedisMetrics._flush = flush  # type: ignore[method-assign]
    assert len(s.log.impressions(10)) == 3
    touches = s.store.touches  # type: ignore[attr-defined]
    assert [(b, set(ids), at) for b, ids, at in touches] == [
        ("b1", shown, datetime(2024, 6, 1, 12, 0, 2, tzinfo=UTC))
    ]
    assert len(sent) == 1
    assert metrics.snapshot(1).total(RECALLS) == 3
    with_spy.close()
    s.store.close()


def test_merged_adds_up_flushes_of_one_metrics_and_keeps_the_rest_in_order() -> None:
    client = fakeredis.FakeRedis()
    one, other = RedisMetrics(client, TTL_S), RedisMetrics(fakeredis.FakeRedis(), TTL_S)
    jobs: list[Callable[[], None]] = []
    for m, n in [(one, 1), (one, 2), (other, 4), (one, 8)]:
        with m.batch(defer=jobs.append):
            m.incr("events", n, {"outcome": "stored"})
            m.observe("recall_ms", float(n))
    plain: list[str] = []
    jobs.insert(2, lambda: plain.append("ran"))
    sends = merged(jobs)
    assert len(sends) == 4  # one(1+2), plain, other(4), one(8)
    for send in sends:
        send()
    assert plain == ["ran"]
    snap = one.snapshot(1)
    assert snap.total("events", outcome="stored") == 11
    latency = snap.latency("recall_ms")
    assert latency is not None and latency.count == 3 and latency.sum_ms == 11
    assert other.snapshot(1).total("events", outcome="stored") == 4
