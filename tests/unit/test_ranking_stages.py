"""Ranking stages, each alone and table-driven."""

import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

import pytest

from contracts.memory import State
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.adjust import (
    apply_feedback,
    apply_recency_bias,
    decay_multiplier,
    feedback_bias,
)
from readmodel.recall.candidate import Candidate
from readmodel.recall.evidence import exact_strengths
from readmodel.recall.gate import relevance_gate
from readmodel.recall.labels import direct_answer, labels_of, low_confidence, topical
from readmodel.recall.order import fill_window, floor_and_truncate, rank
from readmodel.recall.query import analyse, expansions
from readmodel.recall.rerank import EmbeddingReranker, RerankStage
from readmodel.recall.state import as_of_view
from readmodel.store import Record
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
        ("what's next for the plan?", True),
        ("is the gym still closed", True),
        ("I already sent the draft", True),
        ("the nextcloud server", False),
        ("a still-life painting", True),
        ("stillness", False),
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
    def __init__(self, seconds: float = 0.5) -> None:
        self.seconds = seconds

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        time.sleep(self.seconds)
        return [1.0] * len(texts)


class BrokenReranker:
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        raise RuntimeError("model crashed")


class ShortReranker:
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        return [1.0]


class ReverseReranker:
    """Scores the texts in reverse order of their number; counts the texts it scored."""

    def __init__(self) -> None:
        self.scored: list[str] = []

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.scored += texts
        return [int(t.removeprefix("m")) / 10 for t in texts]


def ranked(n: int) -> list[Candidate]:
    return [Candidate(memory(f"m{i}", i), score=1.0 - i / 10) for i in range(n)]


@pytest.mark.parametrize(
    ("reranker", "note"),
    [
        (SlowReranker(), "timeout after 50 ms: order kept"),
        (BrokenReranker(), "failed (RuntimeError): order kept"),
        (ShortReranker(), "failed (ValueError): order kept"),
    ],
)
def test_reranker_failure_keeps_the_order_and_says_so(reranker: object, note: str) -> None:
    stage = RerankStage(reranker, timeout_ms=50, cache_ttl_s=60)  # type: ignore[arg-type]
    cands = ranked(4)
    outcome = stage("q", cands)
    assert outcome.candidates == cands and outcome.note == note


def test_reranker_reorders_and_caches_per_text() -> None:
    reverse = ReverseReranker()
    stage = RerankStage(reverse, timeout_ms=1000, cache_ttl_s=60, weight=1.0)
    cands = ranked(4)
    first = stage("q", cands)
    assert rank(first.candidates, 4)[0].id == cands[-1].id
    assert first.note == "reranked, weight 1 (0 cached, 4 scored)"
    second = stage("q", ranked(5))
    assert second.note == "reranked, weight 1 (4 cached, 1 scored)"
    assert reverse.scored == ["m0", "m1", "m2", "m3", "m4"]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("ttl_s", "size", "advance_s", "rescored"),
    [
        pytest.param(60, 100, 59, 0, id="fresh entries are reused"),
        pytest.param(60, 100, 60, 3, id="entries expire after the TTL"),
        pytest.param(0, 100, 0, 3, id="TTL 0 caches nothing"),
        pytest.param(60, 2, 0, 1, id="size bound evicts the least recently used"),
    ],
)
def test_rerank_cache_expires_and_stays_bounded(
    ttl_s: float, size: int, advance_s: float, rescored: int
) -> None:
    clock, reverse = Clock(), ReverseReranker()
    stage = RerankStage(reverse, timeout_ms=1000, cache_ttl_s=ttl_s, cache_size=size, clock=clock)
    stage("q", ranked(3))
    assert len(stage.cache) <= size
    clock.now += advance_s
    reverse.scored.clear()
    stage("q", ranked(3))
    assert len(reverse.scored) == rescored and len(stage.cache) <= size


def test_a_stuck_reranker_does_not_hold_later_recalls() -> None:
    stage = RerankStage(SlowReranker(0.6), timeout_ms=20, cache_ttl_s=60, max_in_flight=1)
    assert stage("q", ranked(2)).note == "timeout after 20 ms: order kept"
    started = time.perf_counter()
    busy = stage("q2", ranked(2))
    assert busy.note == "busy (earlier calls still running): order kept"
    assert time.perf_counter() - started < 0.1
    time.sleep(0.7)
    assert stage("q3", ranked(2)).note == "timeout after 20 ms: order kept"
    stage.close()


def test_embedding_reranker_scores_by_cosine_in_unit_range() -> None:
    reranker = EmbeddingReranker(HashEmbedder(64))
    scores = reranker.score("alice lives in seattle", ["alice lives in seattle", "zzz qqq"])
    assert scores[0] == pytest.approx(1.0) and 0.0 <= scores[1] < scores[0]


@pytest.mark.parametrize(
    ("limit", "min_score", "max_tokens", "shown", "below", "budget_cut"),
    [
        pytest.param(3, 0.0, None, 3, 0, False, id="limit"),
        pytest.param(10, 0.75, None, 3, 3, False, id="min_score"),
        pytest.param(10, 0.0, 25, 2, 0, True, id="token budget"),
        pytest.param(10, 0.0, 1000, 6, 0, False, id="budget cuts nothing"),
    ],
)
def test_floor_limit_and_token_budget(
    limit: int,
    min_score: float,
    max_tokens: int | None,
    shown: int,
    below: int,
    budget_cut: bool,
) -> None:
    cands = [
        Candidate(memory(" ".join(["w"] * 10) + f" {i}", i), score=1 - i / 10) for i in range(6)
    ]
    window = fill_window(cands, limit, min_score, max_tokens)
    assert (
        len(window.shown) == shown
        and floor_and_truncate(cands, limit, min_score, max_tokens) == window.shown
    )
    assert (window.below_min_score, window.budget_cut) == (below, budget_cut)


@pytest.mark.parametrize(
    ("candidate", "labels"),
    [
        pytest.param(
            Candidate(memory("k"), keyword=0.8, keyword_rank=1), ["keyword-only"], id="kw"
        ),
        pytest.param(
            Candidate(memory("k"), vector=0.1, vector_rank=1, exact=1.0),
            ["keyword-only"],
            id="in the dense list but below the semantic floor",
        ),
        pytest.param(Candidate(memory("s"), vector=0.7, vector_rank=1), [], id="semantic"),
        pytest.param(
            Candidate(memory("s"), vector=0.3, vector_rank=3, keyword=0.5), [], id="at the floor"
        ),
        pytest.param(Candidate(memory("w"), vector=0.1, vector_rank=1), [], id="weak, no words"),
        pytest.param(Candidate(memory("g"), vector=0.7, gate=0.5), ["relevance_gated"], id="gated"),
    ],
)
def test_labels(candidate: Candidate, labels: list[str]) -> None:
    assert labels_of(candidate) == labels


SEM = Candidate(memory("s"), vector=0.7, vector_rank=1)
KW = Candidate(memory("k"), keyword=0.8, keyword_rank=1)
WEAK = Candidate(memory("w"), vector=0.2, vector_rank=1)
GATED = replace(SEM, gate=0.4)


@pytest.mark.parametrize(
    ("shown", "low"),
    [
        ([KW], True),
        ([KW, WEAK], True),
        ([GATED, KW], True),
        ([KW, SEM], False),
        ([WEAK, SEM], False),
        ([], False),
    ],
)
def test_low_confidence(shown: list[Candidate], low: bool) -> None:
    assert low_confidence(shown) is low


@pytest.mark.parametrize(
    ("candidate", "evidence"),
    [
        pytest.param(SEM, True, id="close in meaning"),
        pytest.param(KW, True, id="a query word"),
        pytest.param(Candidate(memory("e"), vector=0.1, exact=0.5), True, id="an exact match"),
        pytest.param(Candidate(memory("d"), vector=0.1, date=1.0), True, id="the named date"),
        pytest.param(Candidate(memory("f"), vector=0.3), True, id="at the semantic floor"),
        pytest.param(WEAK, False, id="weak dense match, no word"),
        pytest.param(
            Candidate(memory("p"), vector=0.0, importance=0.9, recency=1.0),
            False,
            id="importance and recency alone",
        ),
    ],
)
def test_topical_evidence(candidate: Candidate, evidence: bool) -> None:
    assert topical(candidate) is evidence


def falling(*cands: Candidate) -> list[Candidate]:
    """Scores falling in the order given."""
    return [replace(c, score=1 - i / 10) for i, c in enumerate(cands)]


NOISE = [Candidate(memory(f"noise {i}", i), vector=0.05 * i) for i in range(4)]


@pytest.mark.parametrize(
    ("order", "limit", "shown", "left_out"),
    [
        pytest.param(falling(SEM, KW, *NOISE), 10, [SEM.id, KW.id], 4, id="noise after"),
        pytest.param(falling(*NOISE, KW), 10, [KW.id], 4, id="noise first"),
        pytest.param(falling(*NOISE), 3, [], 3, id="only noise: what all would show"),
        pytest.param(falling(SEM, KW, *NOISE), 2, [SEM.id, KW.id], 0, id="window full before"),
        pytest.param(falling(SEM, *NOISE, KW), 3, [SEM.id, KW.id], 2, id="noise between"),
    ],
)
def test_the_evidence_rule_leaves_out_what_has_none(
    order: list[Candidate], limit: int, shown: list[object], left_out: int
) -> None:
    """With the rule (`all` false), only candidates with topical evidence fill the
    window; `without_evidence` is how many of the window without the rule had none."""
    window = fill_window(order, limit, evidence_floor=0.3)
    assert [c.id for c in window.shown] == shown
    assert window.without_evidence == left_out
    every = fill_window(order, limit)
    assert every.without_evidence == 0 and len(every.shown) == min(limit, len(order))


SEATTLE = memory("Alice lives in Seattle.", 0)
BOSTON_BOB = memory("Bob lives in Boston.", 0)
SUPERSEDED = SEATTLE.model_copy(update={"state": State.SUPERSEDED, "superseded_by": BOSTON_BOB.id})


@pytest.mark.parametrize(
    ("top", "second_score", "fires"),
    [
        pytest.param(SEATTLE, 0.5, True, id="current, on topic, clear lead"),
        pytest.param(SEATTLE, 0.85, False, id="lead under the margin"),
        pytest.param(memory("Carol owns a boat.", 0), 0.5, False, id="off topic"),
        pytest.param(SUPERSEDED, 0.5, False, id="superseded today"),
        pytest.param(as_of_view(SUPERSEDED), 0.5, True, id="current as of then"),
    ],
)
def test_direct_answer_needs_a_current_top_overlap_and_margin(
    top: Record, second_score: float, fires: bool
) -> None:
    a = analyse("Where does Alice live?")
    shown = [Candidate(top, score=0.9), Candidate(BOSTON_BOB, score=second_score)]
    assert (direct_answer(shown, a, 0.55, 0.15) == top.id) is fires


@pytest.mark.parametrize(
    ("query", "max_queries", "min_token", "expected"),
    [
        (
            "Which restaurant did Caroline recommend in Lisbon?",
            4,
            3,
            ["restaurant", "recommend", "caroline"],
        ),
        ("Which restaurant did Caroline recommend in Lisbon?", 1, 3, []),
        ("Which restaurant did Caroline recommend in Lisbon?", 9, 9, ["restaurant", "recommend"]),
        ("Lisbon", 4, 3, []),
        ("the of and", 4, 3, []),
    ],
)
def test_expansion_is_deterministic_and_bounded(
    query: str, max_queries: int, min_token: int, expected: list[str]
) -> None:
    a = analyse(query)
    assert expansions(a, max_queries, min_token) == [a.text, *expected]
