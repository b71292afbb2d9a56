"""The length prior: long memories lose against short ones of the same relevance, short
ones are untouched, and the pipeline applies it by default."""

from pathlib import Path

import pytest

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.candidate import Candidate
from readmodel.recall.config import RecallConfig
from readmodel.recall.length import length_factor, length_prior
from readmodel.recall.pipeline import RecallPipeline
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import event, memory
from worker.consolidation.consolidator import Consolidator, consolidate


@pytest.mark.parametrize(
    ("tokens", "weight", "ref", "expected"),
    [
        (10, 0.5, 60, 1.0),
        (60, 0.5, 60, 1.0),
        (240, 0.5, 60, 0.5),
        (240, 1.0, 60, 0.25),
        (240, 0.0, 60, 1.0),
    ],
)
def test_factor(tokens: int, weight: float, ref: int, expected: float) -> None:
    assert length_factor(tokens, weight, ref) == pytest.approx(expected)


def test_long_memory_falls_behind_a_short_one_of_equal_score() -> None:
    short = Candidate(memory("Alice moved to Denver."), score=0.8)
    long = Candidate(memory("Alice moved to Denver. " + "filler " * 200), score=0.8)
    out = {c.id: c.score for c in length_prior([short, long], 0.5, 60)}
    assert out[short.id] == pytest.approx(0.8)
    assert out[long.id] == pytest.approx(0.8 * (60 / 204) ** 0.5)


def test_defaults_are_on() -> None:
    cfg = RecallConfig()
    assert cfg.length_weight > 0 and cfg.length_ref_tokens > 0


def test_pipeline_ranks_the_short_memory_first(tmp_path: Path) -> None:
    emb = HashEmbedder(64)
    store = EdgeStore(tmp_path)
    store.ensure_schema(emb.dimension)
    cons = Consolidator(store, emb, NoLocks())
    padding = " ".join(f"word{i}" for i in range(300))
    consolidate(
        [
            event(f"Maria teaches the violin lesson on Tuesday. {padding}", 0),
            event("The violin lesson is on Tuesday.", 1),
        ],
        cons,
    )
    request = RecallRequest(query="Maria violin lesson Tuesday", limit=2)
    on = RecallPipeline(store, emb).recall("b1", request).results
    off = RecallPipeline(store, emb, RecallConfig(length_weight=0.0)).recall("b1", request)
    assert on[0].text == "The violin lesson is on Tuesday."
    assert off.results[0].text.startswith("Maria teaches")
