"""The baselines honour a query's time: they see only memories that had occurred by then,
and BM25's term statistics come from those memories alone."""

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fakeredis
import pytest

from bench.baselines import BankCorpus, Doc
from bench.dataset import load_generic
from bench.runner import SYSTEMS, Outcomes, Systems, _timed
from sediment.bootstrap import bootstrap
from sediment.settings import Settings
from telemetry.redis_series import RedisMetrics
from worker.consolidation.consolidator import consolidate

T0 = datetime(2025, 1, 1, 12, tzinfo=UTC)
DOCS = [
    Doc(uuid.UUID(int=1), "Ada keeps bees on the roof", T0),
    Doc(uuid.UUID(int=2), "Ada sold the bees and keeps goats", T0 + timedelta(days=2)),
    Doc(uuid.UUID(int=3), "Ada's goats escaped into the garden", T0 + timedelta(days=4)),
]


@pytest.mark.parametrize(
    ("until", "visible"),
    [
        pytest.param(None, 3, id="no query time: every memory"),
        pytest.param(T0 - timedelta(seconds=1), 0, id="before the first memory: none"),
        pytest.param(T0, 1, id="a memory at the query time is seen"),
        pytest.param(T0 + timedelta(days=3), 2, id="later memories are not"),
        pytest.param(T0 + timedelta(days=9), 3, id="after the last: all"),
    ],
)
def test_visible_memories_by_query_time(until: datetime | None, visible: int) -> None:
    assert BankCorpus(list(reversed(DOCS))).visible(until) == visible


@pytest.mark.parametrize(
    ("query", "until", "expected"),
    [
        pytest.param("goats", None, {2, 3}, id="no time: all goats"),
        pytest.param("goats", T0 + timedelta(days=3), {2}, id="only goats known by then"),
        pytest.param("goats", T0 + timedelta(days=1), set(), id="no goats yet"),
        pytest.param("bees", T0 - timedelta(days=1), set(), id="nothing yet"),
    ],
)
def test_bm25_searches_only_what_had_occurred(
    query: str, until: datetime | None, expected: set[int]
) -> None:
    found = BankCorpus(DOCS).index(until).search(query, 10)
    assert {d.id.int for d in found} == expected


def test_indexes_are_reused_per_visible_set() -> None:
    corpus = BankCorpus(DOCS)
    first = corpus.index(T0 + timedelta(days=2, hours=1))
    assert corpus.index(T0 + timedelta(days=3)) is first
    assert corpus.index(None) is not first


def test_a_document_without_time_is_refused() -> None:
    with pytest.raises(ValueError, match="occurred_at"):
        BankCorpus([Doc(uuid.UUID(int=9), "no time")])


def test_no_system_returns_what_occurred_after_the_query(tmp_path: Path) -> None:
    """Sediment (as_of) and every baseline, in the harness: the later memory matches the
    query best, and nobody may show it."""
    memories = [
        ("m1", "Ada keeps bees.", "2025-01-01T12:00:00Z"),
        ("m2", "What does Ada keep? Ada keeps goats.", "2025-01-03T12:00:00Z"),
        ("m3", "Ada keeps bees on the roof.", "2025-01-01T13:00:00Z"),
    ]
    query = {"id": "q1", "bank_id": "b1", "query": "What does Ada keep?", "gold_ids": ["m1"]}
    data = {
        "name": "later",
        "memories": [
            {"id": i, "bank_id": "b1", "text": t, "occurred_at": at} for i, t, at in memories
        ],
        "queries": [{**query, "query_time": "2025-01-02T00:00:00Z"}],
    }
    path = tmp_path / "later.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    bs = load_generic(path)
    rt = bootstrap(Settings(mode="embedded", data_dir=tmp_path / "data", embedder="hash"))
    try:
        consolidate(bs.events, rt.consolidator)
        out = Outcomes()
        Systems(rt.recall_pipeline, rt.store, rt.embedder, bs).run(bs.queries[0], out)
    finally:
        rt.close()
    assert set(out.returned) == set(SYSTEMS)
    for system, items in out.returned.items():
        labels = set().union(*(i.labels for i in items))
        assert "m2" not in labels, system
        assert "m1" in labels, system


def test_a_timed_call_does_not_wait_for_its_metrics() -> None:
    """The store-call metrics a timed recall writes are sent after the clock stops."""
    events: list[str] = []
    client = fakeredis.FakeRedis()
    metrics = RedisMetrics(client, 600)

    def call() -> int:
        metrics.incr("store_calls_total", labels={"method": "fetch"})
        events.append("returned")
        return 7

    real_pipeline = client.pipeline

    def pipeline(*args: object, **kwargs: object) -> object:
        events.append("send")
        return real_pipeline(*args, **kwargs)

    client.pipeline = pipeline  # type: ignore[method-assign]
    value, ms = _timed(call, metrics)
    assert value == 7 and ms >= 0
    assert events == ["returned", "send"]  # held in the batch, sent once the clock stopped
    events.clear()
    _timed(call)
    assert events == ["send", "returned"]  # unbatched: sent inside the timed call
