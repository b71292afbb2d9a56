"""Session affinity: the best candidates lift others told within the window of them,
once, by a share of their own score; strangers and the anchors' own scores are untouched."""

from dataclasses import replace
from datetime import timedelta

import pytest

from readmodel.recall.candidate import Candidate
from readmodel.recall.config import RecallConfig
from readmodel.recall.session import session_affinity
from tests.helpers import memory

HOUR = timedelta(hours=1)


def cand(text: str, day: int, score: float, minutes: int = 0) -> Candidate:
    m = memory(text, day)
    m = m.model_copy(update={"occurred_at": m.occurred_at + timedelta(minutes=minutes)})
    return Candidate(m, score=score)


def scores(cands: list[Candidate]) -> dict[str, float]:
    return {c.record.text: c.score for c in cands}


def test_a_session_mate_rises_past_a_stranger() -> None:
    anchor = cand("The plan has three steps.", 3, 0.9)
    mate = cand("Step two is the budget review.", 3, 0.3, minutes=5)
    stranger = cand("A budget review of another year.", 40, 0.35)
    out = scores(session_affinity([anchor, mate, stranger], 0.2, 1, HOUR))
    assert out["The plan has three steps."] == pytest.approx(0.9)
    assert out["Step two is the budget review."] == pytest.approx(0.3 + 0.2 * 0.9)
    assert out["A budget review of another year."] == pytest.approx(0.35)


def test_only_the_largest_loan_counts() -> None:
    a = cand("first anchor", 3, 0.9)
    b = cand("second anchor", 3, 0.8, minutes=1)
    mate = cand("mate", 3, 0.1, minutes=2)
    out = scores(session_affinity([a, b, mate], 0.2, 2, HOUR))
    assert out["mate"] == pytest.approx(0.1 + 0.2 * 0.9)
    assert out["second anchor"] == pytest.approx(0.8 + 0.2 * 0.9)
    assert out["first anchor"] == pytest.approx(0.9 + 0.2 * 0.8)


def test_outside_the_window_nothing_is_lent() -> None:
    anchor = cand("anchor", 3, 0.9)
    later = cand("later", 3, 0.2, minutes=61)
    assert scores(session_affinity([anchor, later], 0.2, 1, HOUR))["later"] == pytest.approx(0.2)


def test_off_returns_the_candidates_unchanged() -> None:
    cands = [cand("a", 1, 0.5), cand("b", 1, 0.4, minutes=1)]
    assert session_affinity(cands, 0.0, 3, HOUR) == cands
    assert session_affinity(cands, 0.2, 0, HOUR) == cands
    assert session_affinity(cands[:1], 0.2, 3, HOUR) == cands[:1]


def test_defaults_are_on() -> None:
    cfg = RecallConfig()
    assert cfg.session_weight > 0 and cfg.session_anchors > 0 and cfg.session_window_minutes > 0
    assert replace(cfg, session_weight=0.0).session_weight == 0.0
