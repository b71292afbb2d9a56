"""Score adjustments after current state and dedup: decay, recency bias, feedback."""

import math
from datetime import datetime

from readmodel.recall.candidate import Candidate, replace

UP_BIAS, DOWN_BIAS, MARK_BIAS, MARK_CAP, VOTE_CAP = 0.05, 0.10, 0.05, 0.25, 3
SECONDS_PER_DAY = 86_400.0


def decay_multiplier(
    c: Candidate,
    now: datetime,
    half_life_days: float,
    floor: float,
    recency_weight: float,
    importance_weight: float,
) -> float:
    """floor + (1 - floor) * blend(0.5 ** (age / half_life), importance); age from the later
    of occurred_at / created_at and last access. A future timestamp counts as age 0."""
    r = c.record
    stamps = [t for t in (r.occurred_at, r.created_at, r.last_accessed_at) if t is not None]
    age_days = max(0.0, (now - max(stamps)).total_seconds() / SECONDS_PER_DAY) if stamps else 0.0
    freshness = 0.5 ** (age_days / half_life_days)
    total = recency_weight + importance_weight
    blend = (
        (recency_weight * freshness + importance_weight * r.importance) / total if total else 1.0
    )
    return floor + (1.0 - floor) * min(1.0, max(0.0, blend))


def apply_decay(
    candidates: list[Candidate],
    now: datetime,
    half_life_days: float,
    floor: float,
    recency_weight: float,
    importance_weight: float,
) -> list[Candidate]:
    out = []
    for c in candidates:
        m = decay_multiplier(c, now, half_life_days, floor, recency_weight, importance_weight)
        out.append(replace(c, decay=m, score=c.score * m))
    return out


def apply_recency_bias(candidates: list[Candidate], weight: float) -> list[Candidate]:
    """Add weight x the timestamp min-max normalised over the pool's candidates (not
    `Candidate.deep`), clamped to 0..1. One candidate, equal or unusable timestamps add
    nothing."""
    stamps = []
    for c in candidates:
        try:
            stamps.append(c.record.occurred_at.timestamp())
        except (OverflowError, OSError, ValueError):
            return candidates
    if len(stamps) < 2 or not all(math.isfinite(s) for s in stamps):
        return candidates
    inside = [s for c, s in zip(candidates, stamps, strict=True) if not c.deep]
    low, high = (min(inside), max(inside)) if inside else (0.0, 0.0)
    if high <= low:
        return candidates
    out = []
    for c, ts in zip(candidates, stamps, strict=True):
        bias = weight * min(1.0, max(0.0, (ts - low) / (high - low)))
        out.append(replace(c, recency_bias=bias, score=c.score + bias))
    return out


def feedback_bias(votes_up: int, votes_down: int, not_useful: int) -> float:
    """+0.05 per up and -0.10 per down vote (3 each at most), -0.05 per "not useful"
    mark (at most -0.25): +0.15 .. -0.55, a bias, never a filter."""
    up, down = min(VOTE_CAP, max(0, votes_up)), min(VOTE_CAP, max(0, votes_down))
    marks = min(MARK_CAP, MARK_BIAS * max(0, not_useful))
    return UP_BIAS * up - DOWN_BIAS * down - marks


def apply_feedback(candidates: list[Candidate]) -> list[Candidate]:
    """The bias counts fully only with topical evidence (scaled by the gate factor)."""
    out = []
    for c in candidates:
        r = c.record
        bias = feedback_bias(r.votes_up, r.votes_down, r.not_useful) * c.gate
        out.append(replace(c, feedback=bias, score=c.score + bias) if bias else c)
    return out
