"""Ranking stages, each alone and table-driven."""

import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

import pytest

from readmodel.recall.adjust import (
    apply_feedback,
    apply_recency_bias,
    decay_multiplier,
    feedback_bias,
)
from readmodel.recall.candidate import Candidate
from readmodel.recall.evidence import exact_strengths
from readmodel.recall.gate import relevance_gate
from readmodel.recall.labels import direct_answer, labels_of, low_confidence
from readmodel.recall.order import floor_and_truncate, rank
from readmodel.recall.query import analyse, expansions
from readmodel.recall.rerank import RerankStage
from tests.helpers import T0, memory


@pytest.mark.parametrize(
    ("query", "fires"),
    [
        ("what is my current address", True),
        ("where do I live now", True),
        ("what changed recently?", True),
        ("the latest plan", True),
        ("does she still do it these days", True),
        ("currency rates", False),
        ("nowhere to go", False),
        ("snowfall in March", False),
        ("update the currents", False),
    ],
)
def test_temporal_intent_is_word_boundaried(query: str, fires: bool) -> None:
    assert analyse(query).temporal_intent is fires


def test_terms_drop_function_words_and_short_tokens() -> None:
    assert analyse("When did Alice move from Boston into Seattle?").terms == (
        "alice",
        "move",
        "boston",
        "seattle",
    )


def test_recency_bias_flips_two_near_equal_candidates() -> None:
    old, new = memory("old", 0), memory("new", 30)
    cands = [Candidate(old, score=0.55), Candidate(new, score=0.50)]
    assert rank(cands, 2)[0].id == old.id
    assert rank(apply_recency_bias(cands, 0.1), 2)[0].id == new.id


@pytest.mark.parametrize("stamps", [[0], [3, 3, 3]])
def test_recency_bias_adds_nothing_for_one_or_equal_timestamps(stamps: list[int]) -> None:
    cands = [Candidate(memory(f"m{i}", d), score=0.5) for i, d in enumerate(stamps)]
    assert apply_recency_bias(cands, 0.1) == cands


def test_rare_term_outranks_three_common_term_memories() -> None:
    common = [Candidate(memory(f"apple pie number {i}", i)) for i in range(3)]
    rare = Candidate(memory("zebra crossing", 5))
    strengths = exact_strengths([*common, rare], analyse("apple zebra"), bonus=4.0)
    assert strengths[3] == pytest.approx(1.0)
    assert all(s == pytest.approx(1 / 3) for s in strengths[:3])


@pytest.mark.parametrize(
    ("key", "bonus_applies"),
    [("project.spec", True), ("project.respec", False), ("spec", True), ("specs", True)],
)
def test_key_bonus_respects_word_boundaries(key: str, bonus_applies: bool) -> None:
    m = Candidate(memory("the spec was approved", 0, key=key))
    other = Candidate(memory("another spec draft", 1))
    strengths = exact_strengths([m, other], analyse("spec"), bonus=4.0)
    assert strengths[0] == pytest.approx(2.0 if bonus_applies else 0.5)


def test_gate_scales_query_independent_parts_and_flags() -> None:
    weak = Candidate(memory("w", 0), vector=0.1, importance=1.0, score=0.1 * 0.55 + 0.02)
    strong = Candidate(memory("s", 0), vector=0.9, importance=1.0, score=0.9 * 0.55 + 0.02)
    out = relevance_gate([weak, strong], gate=0.5)
    assert out[0].gate == pytest.approx(0.2) and "relevance_gated" in labels_of(out[0])
    assert out[0].score == pytest.approx(0.1 * 0.55 + 0.02 * 0.2)
    assert out[1] == strong
    assert relevance_gate([weak], gate=0.0) == [weak]


def test_feedback_bias_stays_bounded_after_100_votes() -> None:
    assert feedback_bias(100, 0, 0) == pytest.approx(0.15)
    assert feedback_bias(0, 100, 100) == pytest.approx(-0.30 - 0.25)
    record = memory("m", 0).model_copy(update={"votes_up": 100, "not_useful": 100})
    [c] = apply_feedback([Candidate(record, score=0.5)])
    assert -0.55 <= c.feedback <= 0.15 and c.score == pytest.approx(0.5 + 0.15 - 0.25)


@pytest.mark.parametrize(
    ("age_days", "importance", "expected"),
    [
        (0, 0.0, 0.2 + 0.8 * 0.5),
        (14, 1.0, 0.2 + 0.8 * 0.75),
        (-30, 0.0, 0.2 + 0.8 * 0.5),
        (10_000, 0.0, 0.2),
    ],
)
def test_decay_multiplier(age_days: float, importance: float, expected: float) -> None:
    r = memory("m", 0).model_copy(update={"importance": importance, "created_at": T0})
    now = T0 + timedelta(days=age_days)
    m = decay_multiplier(Candidate(r), now, 14, 0.2, 0.5, 0.5)
    assert m == pytest.approx(expected, abs=1e-6)


class SlowReranker:
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        time.sleep(0.5)
        return [1.0] * len(texts)


class BrokenReranker:
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        raise RuntimeError("model crashed")


class ReverseReranker:
    calls = 0

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        ReverseReranker.calls += 1
        return [i / len(texts) for i in range(len(texts))]


def ranked(n: int) -> list[Candidate]:
    return [Candidate(memory(f"m{i}", i), score=1.0 - i / 10) for i in range(n)]


@pytest.mark.parametrize("reranker", [SlowReranker(), BrokenReranker()])
def test_reranker_failure_keeps_the_order_and_says_so(reranker: object) -> None:
    stage = RerankStage(reranker, timeout_ms=50, cache_ttl_s=60)  # type: ignore[arg-type]
    cands = ranked(4)
    outcome = stage("q", cands)
    assert outcome.candidates == cands and "order kept" in outcome.note


def test_reranker_reorders_and_caches() -> None:
    stage = RerankStage(ReverseReranker(), timeout_ms=1000, cache_ttl_s=60, weight=1.0)
    cands = ranked(4)
    first = stage("q", cands)
    assert rank(first.candidates, 4)[0].id == cands[-1].id
    second = stage("q", cands)
    assert second.note == "reranked (cache)" and ReverseReranker.calls == 1


def test_floor_limit_and_token_budget() -> None:
    cands = [
        Candidate(memory(" ".join(["w"] * 10) + f" {i}", i), score=1 - i / 10) for i in range(6)
    ]
    assert len(floor_and_truncate(cands, 3, 0.0, None)) == 3
    assert len(floor_and_truncate(cands, 10, 0.75, None)) == 3
    assert len(floor_and_truncate(cands, 10, 0.0, 25)) == 2


def test_keyword_only_label_and_low_confidence() -> None:
    kw = Candidate(memory("k", 0), keyword=0.8, keyword_rank=1)
    sem = Candidate(memory("s", 0), vector=0.7, vector_rank=1)
    assert labels_of(kw) == ["keyword-only"] and labels_of(sem) == []
    assert low_confidence([kw]) and not low_confidence([kw, sem]) and not low_confidence([])


def test_direct_answer_needs_overlap_and_margin() -> None:
    a = analyse("Where does Alice live?")
    top = Candidate(memory("Alice lives in Seattle.", 0), score=0.9)
    close = Candidate(memory("Bob lives in Boston.", 0), score=0.85)
    far = replace(close, score=0.5)
    assert direct_answer([top, far], a, 0.55, 0.15) == top.id
    assert direct_answer([top, close], a, 0.55, 0.15) is None
    off_topic = Candidate(memory("Carol owns a boat.", 0), score=0.9)
    assert direct_answer([off_topic, far], a, 0.55, 0.15) is None


def test_expansion_is_deterministic_and_bounded() -> None:
    a = analyse("Which restaurant did Caroline recommend in Lisbon?")
    assert expansions(a, 4, 3) == [a.text, "restaurant", "recommend", "caroline"]
    assert expansions(a, 1, 3) == [a.text]
    assert uuid.UUID(int=0) is not None
