"""The whole pipeline on the real embedded engine: state modes, filters, explain, decay."""

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.config import RecallConfig
from readmodel.recall.pipeline import Recall
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import T0, event
from worker.consolidation.service import Consolidator, consolidate

EMB = HashEmbedder(64)


@pytest.fixture
def model(tmp_path: Path) -> Consolidator:
    store = EdgeStore(tmp_path)
    store.ensure_schema(EMB.dimension)
    cons = Consolidator(store, EMB, NoLocks())
    consolidate(
        [
            event("Alice lives in Boston.", 0, key="alice.city", tags=["home"]),
            event("Alice lives in Denver.", 10, key="alice.city", tags=["home"]),
            event("Alice lives in Seattle.", 20, key="alice.city", tags=["home"]),
            event("Alice works at the harbour.", 5, tags=["work"]),
        ],
        cons,
    )
    return cons


def ask(cons: Consolidator, config: RecallConfig | None = None, **kw: object) -> list[str]:
    recall = Recall(cons.store, EMB, config or RecallConfig())
    response = recall.recall("b1", RecallRequest(query="Where does Alice live?", **kw))  # type: ignore[arg-type]
    return [r.text for r in response.results]


def test_current_state_returns_the_head_only(model: Consolidator) -> None:
    texts = ask(model, limit=5)
    assert texts[0] == "Alice lives in Seattle."
    assert "Alice lives in Boston." not in texts and "Alice lives in Denver." not in texts


def test_history_returns_every_state(model: Consolidator) -> None:
    texts = ask(model, limit=5, state_mode="history")
    assert {"Alice lives in Boston.", "Alice lives in Denver.", "Alice lives in Seattle."} <= set(
        texts
    )


def test_as_of_returns_what_was_current_then(model: Consolidator) -> None:
    texts = ask(model, limit=5, as_of=T0 + timedelta(days=12))
    assert texts[0] == "Alice lives in Denver."
    assert "Alice lives in Seattle." not in texts and "Alice lives in Boston." not in texts


def test_a_head_outside_the_tag_scope_is_not_returned(model: Consolidator) -> None:
    old = event("Alice's desk is on floor 2.", 1, tags=["work"])
    consolidate(
        [old, event("Alice's desk moved to floor 5.", 2, tags=["home"], supersedes=[old.event_id])],
        model,
    )
    recall = Recall(model.store, EMB)
    scoped = recall.recall("b1", RecallRequest(query="Alice desk floor", tags=["work"]))
    assert all("desk" not in r.text for r in scoped.results)
    anywhere = recall.recall("b1", RecallRequest(query="Alice desk floor"))
    assert anywhere.results[0].text == "Alice's desk moved to floor 5."


def test_explain_lists_stages_and_components(model: Consolidator) -> None:
    recall = Recall(model.store, EMB)
    response = recall.recall("b1", RecallRequest(query="Alice Seattle", explain=True))
    stages = [s.stage for s in response.explain or []]
    assert stages[:4] == ["embed", "fetch", "fuse", "gate"]
    assert "decay" not in stages and "recency_bias" not in stages
    top = response.results[0]
    assert top.components is not None and 0 < top.components.vector <= 1
    assert top.components.decay == 1.0


def test_decay_off_is_bit_for_bit_and_floor_one_is_identity(model: Consolidator) -> None:
    off = ask_scores(model, RecallConfig())
    on_identity = ask_scores(model, replace(RecallConfig(), decay_enabled=True, decay_floor=1.0))
    assert off == on_identity


def ask_scores(cons: Consolidator, config: RecallConfig) -> list[float]:
    recall = Recall(cons.store, EMB, config)
    return [r.score for r in recall.recall("b1", RecallRequest(query="Alice")).results]


def test_auto_recency_bias_is_echoed(model: Consolidator) -> None:
    recall = Recall(model.store, EMB, RecallConfig(recency_bias="auto"))
    on = recall.recall("b1", RecallRequest(query="where does Alice live now?"))
    off = recall.recall("b1", RecallRequest(query="Alice currency"))
    assert on.recency_bias == "on" and off.recency_bias == "off"


def test_bank_filter_always_applies(model: Consolidator) -> None:
    recall = Recall(model.store, EMB)
    assert recall.recall("other", RecallRequest(query="Alice lives in Seattle")).results == []


def test_expansion_merges_without_duplicates(model: Consolidator) -> None:
    recall = Recall(model.store, EMB, RecallConfig(query_expansion=True))
    response = recall.recall("b1", RecallRequest(query="Alice harbour work", limit=10))
    ids = [r.id for r in response.results]
    assert len(ids) == len(set(ids)) and response.results
