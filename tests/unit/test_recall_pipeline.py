"""The whole pipeline on the real embedded engine: state modes, explain, decay, the
reranker, prefer-observations."""

import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.config import RecallConfig
from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.rerank import Reranker, RerankStage
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import DEFAULT_STAGES, T0, event
from worker.consolidation.consolidator import Consolidator, consolidate

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
    recall = RecallPipeline(cons.store, EMB, config or RecallConfig())
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


def test_as_of_returns_what_was_current_then_as_current(model: Consolidator) -> None:
    recall = RecallPipeline(model.store, EMB)
    as_of = T0 + timedelta(days=12)
    response = recall.recall("b1", RecallRequest(query="Where does Alice live?", as_of=as_of))
    texts = [r.text for r in response.results]
    assert texts[0] == "Alice lives in Denver."
    assert "Alice lives in Seattle." not in texts and "Alice lives in Boston." not in texts
    top = response.results[0]
    assert (top.state, top.superseded_by, top.relation) == ("current", None, None)
    assert "superseded" not in top.labels
    today = recall.recall("b1", RecallRequest(query="Where does Alice live?", state_mode="history"))
    denver = next(r for r in today.results if r.text == "Alice lives in Denver.")
    assert denver.state == "superseded" and "superseded" in denver.labels


def test_a_head_outside_the_tag_scope_is_not_returned(model: Consolidator) -> None:
    old = event("Alice's desk is on floor 2.", 1, tags=["work"])
    consolidate(
        [old, event("Alice's desk moved to floor 5.", 2, tags=["home"], supersedes=[old.event_id])],
        model,
    )
    recall = RecallPipeline(model.store, EMB)
    scoped = recall.recall("b1", RecallRequest(query="Alice desk floor", tags=["work"]))
    assert all("desk" not in r.text for r in scoped.results)
    anywhere = recall.recall("b1", RecallRequest(query="Alice desk floor"))
    assert anywhere.results[0].text == "Alice's desk moved to floor 5."


def explained(
    cons: Consolidator, config: RecallConfig | None = None, **kw: object
) -> dict[str, str]:
    recall = RecallPipeline(cons.store, EMB, config or RecallConfig())
    request = RecallRequest(query="Where does Alice live?", explain=True, **kw)  # type: ignore[arg-type]
    response = recall.recall("b1", request)
    assert response.explain is not None and set(response.timings) == {
        s.stage for s in response.explain
    }
    assert response.timings == response.timings_ms
    return {s.stage: s.note for s in response.explain}


@pytest.mark.parametrize(
    ("config", "options", "stage", "note"),
    [
        (RecallConfig(), {}, "embed", "1 query"),
        (RecallConfig(), {}, "sort", "score, then newest first, then id"),
        # the old states match the question no better than the head: none lends its score
        (RecallConfig(), {}, "current_state", "heads in place of superseded states: 1"),
        (RecallConfig(), {}, "fetch", "depth 60; current states, and the best 10 superseded"),
        (RecallConfig(), {}, "truncate", "limit 10; no min_score; no max_tokens"),
        (RecallConfig(), {"min_score": 0.3}, "truncate", "limit 10; min_score 0.3 cut 1;"),
        (RecallConfig(), {"max_tokens": 5}, "truncate", "max_tokens 5 cut the rest"),
        (RecallConfig(), {"max_tokens": 500}, "truncate", "max_tokens 500 cut nothing"),
        (RecallConfig(), {}, "prefer_observations", "dropped 0 raw memories"),
        (
            RecallConfig(query_expansion=True),
            {},
            "embed",
            "3 queries: the query, then sub-queries 'alice', 'live'",
        ),
        (RecallConfig(decay_enabled=True), {}, "decay", "half-life 14 d"),
        (RecallConfig(), {}, "length", "weight 0.3 over 60"),
        (RecallConfig(), {}, "session", "weight 0.2"),
        (RecallConfig(), {}, "snippets", "long memories returned as their passage: 0"),
        (RecallConfig(), {"recency_bias": "on"}, "recency_bias", "on, weight 0.3"),
    ],
)
def test_explain_says_what_each_stage_did(
    model: Consolidator,
    config: RecallConfig,
    options: dict[str, object],
    stage: str,
    note: str,
) -> None:
    notes = explained(model, config, **options)
    assert note in notes[stage] or notes[stage].startswith(note), notes[stage]


def test_explain_lists_every_default_stage_in_order(model: Consolidator) -> None:
    assert list(explained(model)) == DEFAULT_STAGES
    assert "prefer_observations" not in explained(model, prefer_observations=False)


def test_components_describe_the_shown_text_or_say_whose_they_are(model: Consolidator) -> None:
    recall = RecallPipeline(model.store, EMB)
    boston = recall.recall("b1", RecallRequest(query="Alice Boston", explain=True, limit=3))
    top = boston.results[0]
    assert top.text == "Alice lives in Seattle." and top.state_replaces is not None
    assert top.components is not None and top.components.score_from == top.state_replaces
    seattle = recall.recall("b1", RecallRequest(query="Alice Seattle", explain=True, limit=3))
    top = seattle.results[0]
    assert top.text == "Alice lives in Seattle." and top.components is not None
    assert top.components.score_from is None and top.components.exact > 0
    for r in boston.results + seattle.results:
        c = r.components
        assert c is not None
        assert all(0.0 <= v <= 1.0 for v in (c.vector, c.keyword, c.exact, c.importance, c.recency))


def test_decay_off_is_bit_for_bit_and_floor_one_is_identity(model: Consolidator) -> None:
    off = ask_scores(model, RecallConfig())
    on_identity = ask_scores(model, replace(RecallConfig(), decay_enabled=True, decay_floor=1.0))
    assert off == on_identity


def ask_scores(cons: Consolidator, config: RecallConfig) -> list[float]:
    recall = RecallPipeline(cons.store, EMB, config)
    return [r.score for r in recall.recall("b1", RecallRequest(query="Alice")).results]


def test_auto_recency_bias_is_echoed(model: Consolidator) -> None:
    recall = RecallPipeline(model.store, EMB, RecallConfig(recency_bias="auto"))
    on = recall.recall("b1", RecallRequest(query="where does Alice live now?"))
    off = recall.recall("b1", RecallRequest(query="Alice currency"))
    assert on.recency_bias == "on" and off.recency_bias == "off"


def test_bank_filter_always_applies(model: Consolidator) -> None:
    recall = RecallPipeline(model.store, EMB)
    assert recall.recall("other", RecallRequest(query="Alice lives in Seattle")).results == []


def test_expansion_merges_without_duplicates(model: Consolidator) -> None:
    recall = RecallPipeline(model.store, EMB, RecallConfig(query_expansion=True))
    response = recall.recall("b1", RecallRequest(query="Alice harbour work", limit=10))
    ids = [r.id for r in response.results]
    assert len(ids) == len(set(ids)) and response.results


class SleepyReranker:
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        time.sleep(0.3)
        return [1.0] * len(texts)


class ReverseReranker:
    """Scores the texts it is given in rising order: the order comes out reversed."""

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        return [(i + 1) / len(texts) for i in range(len(texts))]


@pytest.mark.parametrize(
    ("reranker", "timeout_ms", "keeps_order", "note"),
    [
        pytest.param(SleepyReranker(), 20, True, "timeout after 20 ms: order kept", id="timeout"),
        pytest.param(ReverseReranker(), 2000, False, "reranked, weight 1", id="reranked"),
    ],
)
def test_reranker_inside_the_pipeline(
    model: Consolidator, reranker: Reranker, timeout_ms: float, keeps_order: bool, note: str
) -> None:
    request = RecallRequest(query="Alice", explain=True, limit=3)
    plain = RecallPipeline(model.store, EMB).recall("b1", request)
    stage = RerankStage(reranker, timeout_ms=timeout_ms, cache_ttl_s=60, weight=1.0)
    reranked = RecallPipeline(model.store, EMB, reranker=stage).recall("b1", request)
    ids = [r.id for r in plain.results]
    assert len(ids) > 1
    assert [r.id for r in reranked.results] == (ids if keeps_order else ids[::-1])
    notes = {s.stage: s.note for s in reranked.explain or []}
    assert notes["rerank"].startswith(note)
    assert all(
        (r.components and r.components.rerank is None) is keeps_order for r in reranked.results
    )
    stage.close()


def test_prefer_observations_keeps_the_count_at_the_limit(tmp_path: Path) -> None:
    store = EdgeStore(tmp_path)
    store.ensure_schema(EMB.dimension)
    cons = Consolidator(store, EMB, NoLocks())
    same = "Bob plays the cello in an orchestra."
    others = [event(f"Bob plays {x} on weekends.", 3 + i) for i, x in enumerate(["chess", "golf"])]
    consolidate([event(same, 1), event(same, 2), *others], cons)
    recall = RecallPipeline(store, EMB)
    for limit in (1, 2, 3):
        response = recall.recall("b1", RecallRequest(query="Bob cello orchestra", limit=limit))
        assert len(response.results) == limit
        shown = {r.id for r in response.results}
        covered = {m for r in response.results for m in r.source_memory_ids}
        assert not shown & covered
    assert response.results[0].kind == "observation" and response.dropped_by_prefer_observations


class Axes:
    """Each known text on its own axis; `near:` queries on the axis of the text they
    name, any other query on an axis of its own. Dense search still returns every
    memory of a small bank, whatever its similarity."""

    name, dimension = "axes", 4
    TEXTS = ("The parcel left Lisbon.", "Maya drinks green tea.", "Alice lives in Seattle.")

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        return [self._axis(t) for t in texts]

    def _axis(self, text: str) -> tuple[float, ...]:
        named = text.removeprefix("near:")
        axis = self.TEXTS.index(named) + 1 if named in self.TEXTS else 0
        return tuple(1.0 if i == axis else 0.0 for i in range(self.dimension))


@pytest.mark.parametrize(
    ("query", "labels", "low"),
    [
        pytest.param(
            "parcel", ["keyword-only"], True, id="words only, every memory in the dense list"
        ),
        pytest.param("near:The parcel left Lisbon.", [], False, id="found by meaning"),
    ],
)
def test_keyword_only_needs_a_vector_floor_not_dense_list_membership(
    tmp_path: Path, query: str, labels: list[str], low: bool
) -> None:
    emb = Axes()
    store = EdgeStore(tmp_path)
    store.ensure_schema(emb.dimension)
    consolidate(
        [event(t, i) for i, t in enumerate(Axes.TEXTS)], Consolidator(store, emb, NoLocks())
    )
    response = RecallPipeline(store, emb).recall("b1", RecallRequest(query=query, explain=True))
    assert len(response.results) == 3
    top = response.results[0]
    assert top.text == "The parcel left Lisbon." and top.labels == labels
    assert response.low_confidence is low


def test_by_default_a_follow_up_question_prefers_the_newer_of_two_close_matches(
    tmp_path: Path,
) -> None:
    store = EdgeStore(tmp_path)
    store.ensure_schema(EMB.dimension)
    cons = Consolidator(store, EMB, NoLocks())
    consolidate(
        [
            event("Plan for the party: book the venue.", 0),
            event("Plan for the party: send the invitations.", 10),
        ],
        cons,
    )
    recall = RecallPipeline(store, EMB)
    request = RecallRequest(query="What is next in the plan for the party?")
    shown = recall.recall("b1", request)
    assert shown.recency_bias == "on"
    assert shown.results[0].text == "Plan for the party: send the invitations."
    plain = RecallPipeline(store, EMB, replace(RecallConfig(), recency_bias="off"))
    assert plain.recall("b1", request).results[0].text == "Plan for the party: book the venue."
