"""What the bootstrap wires from settings: the reranker (off by default, MiniLM when
asked, with the timeout, TTL and cache size of the settings) and the slow-call hook on
the store."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from contracts.recall import RecallRequest
from readmodel.recall.rerank import EmbeddingReranker
from readmodel.stores.metered import MeteredStore
from sediment.bootstrap import Runtime, bootstrap
from sediment.settings import Settings
from tests.helpers import event
from worker.consolidation.consolidator import consolidate


def runtime(tmp_path: Path, **overrides: object) -> Iterator[Runtime]:
    settings = Settings(mode="embedded", data_dir=tmp_path, embedder="hash", **overrides)  # type: ignore[arg-type]
    rt = bootstrap(settings)
    consolidate(
        [event("Alice lives in Seattle.", 1), event("Alice keeps bees.", 2)], rt.consolidator
    )
    yield rt
    rt.close()


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[Runtime]:
    yield from runtime(tmp_path, recall_slow_ms=0.001)


def test_no_reranker_by_default(plain: Runtime) -> None:
    assert plain.reranker is None and plain.recall_pipeline.reranker is None
    response = plain.recall_pipeline.recall("b1", RecallRequest(query="Alice", explain=True))
    assert "rerank" not in {s.stage for s in response.explain or []}


def test_store_calls_reach_the_slow_log(plain: Runtime) -> None:
    assert isinstance(plain.store, MeteredStore)
    plain.recall_pipeline.recall("b1", RecallRequest(query="Alice"))
    assert plain.slow_calls.flush(10)
    operations = {e["operation"] for e in plain.recall_log.slow_calls(100)}
    assert "store.search_hybrid" in operations


@pytest.mark.minilm
def test_minilm_reranker_is_wired_with_its_settings(tmp_path: Path) -> None:
    rt = next(
        runtime(
            tmp_path,
            recall_reranker="minilm",
            recall_rerank_timeout_ms=20_000,
            recall_rerank_cache_ttl_s=30,
            recall_rerank_cache_size=7,
        )
    )
    try:
        stage = rt.recall_pipeline.reranker
        assert stage is not None and isinstance(stage.reranker, EmbeddingReranker)
        assert (stage.timeout_ms, stage.cache.ttl_s, stage.cache.size) == (20_000, 30, 7)
        request = RecallRequest(query="Where does Alice live?", explain=True)
        response = rt.recall_pipeline.recall("b1", request)
        notes = {s.stage: s.note for s in response.explain or []}
        assert notes["rerank"].startswith("reranked"), notes["rerank"]
        assert response.results[0].text == "Alice lives in Seattle."
        assert all(r.components and r.components.rerank is not None for r in response.results)
        assert rt.recall_pipeline.ranking_settings()["reranker"] == stage.name == "minilm-384"
    finally:
        rt.close()
