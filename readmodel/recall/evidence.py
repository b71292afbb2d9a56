"""Components in 0..1 that do not come from the engine: exact match, importance,
recency, and the cosine calibrated against the query's other dense hits."""

import re
import statistics
from collections import Counter
from collections.abc import Iterable

from readmodel.recall.candidate import Candidate, in_pool, replace, text_stats
from readmodel.recall.query import QueryAnalysis
from readmodel.store import Record
from readmodel.text import stem

_SPLIT = re.compile(r"[^\w]+|_")


def _stems(words: Iterable[str]) -> set[str]:
    return {stem(w) for w in words}


def _label_stems(record: Record) -> set[str]:
    """Whole words of the memory's key, title and entity names ("spec" is not in "respec")."""
    parts = [record.key or "", record.metadata.get("title", ""), *record.entities]
    return _stems(w for p in parts for w in _SPLIT.split(p.lower()) if w)


def pooled(candidates: list[Candidate], pool: int) -> list[Candidate]:
    """The candidates as a search `pool` deep would have brought them: one with a rank
    beyond `pool` in one list keeps only the other list's evidence; one beyond it in
    both is `deep` (ranked after the pool). So evidence, and the pool it is measured
    against, do not depend on how deep a large limit made the search."""
    out = []
    for c in candidates:
        if not in_pool(c, pool):
            out.append(replace(c, deep=True))
            continue
        changes: dict[str, object] = {}
        if c.vector_rank is not None and c.vector_rank > pool:
            changes.update(vector=0.0, vector_rank=None)
        if c.keyword_rank is not None and c.keyword_rank > pool:
            changes.update(keyword=0.0, keyword_rank=None)
        out.append(replace(c, **changes) if changes else c)
    return out


def exact_strengths(
    candidates: list[Candidate], analysis: QueryAnalysis, bonus: float
) -> list[float]:
    """Sum over matched query terms of 1/df, times `bonus` when the term is a whole word
    of the key, title or entities. df counts the candidates of the pool (not `deep`)
    that hold the term, and a deep candidate itself besides."""
    wanted = set(analysis.stems)
    labels = [wanted & _label_stems(c.record) for c in candidates]
    hits = [(wanted & text_stats(c).stems) | lab for c, lab in zip(candidates, labels, strict=True)]
    df = Counter(t for c, h in zip(candidates, hits, strict=True) if not c.deep for t in h)
    out = []
    for c, h, lab in zip(candidates, hits, labels, strict=True):
        out.append(sum((bonus if t in lab else 1.0) / (df[t] + c.deep) for t in h))
    return out


CALIBRATION_SPREAD = 3.0
"""Standard deviations above the mean of the query's dense hits at which a calibrated
cosine reaches 1."""

MIN_CALIBRATION_HITS = 3
"""Fewer dense hits than this are no distribution to measure against: their calibrated
value is the cosine itself."""


def calibrated_cosines(
    candidates: list[Candidate], spread: float = CALIBRATION_SPREAD
) -> list[float]:
    """Each candidate's cosine as standard deviations above the mean cosine of the
    query's dense hits, divided by `spread` and clamped to 0..1; 0 for a candidate the
    dense search did not return. The mean and deviation are those of the dense hits of
    the pool (not `deep`).

    A raw cosine says little on its own: one embedder puts every text of a bank within
    0.2 of 0.5, another spreads them over the whole range, and one query's best match
    may sit where another query's tenth does. Measured against the query's own hits,
    a memory that stands out scores high whichever model embedded it, and a sharper
    dense signal (a few hits far above the rest) weighs more than a flat one."""
    cosines = [c.vector for c in candidates if c.vector_rank is not None and not c.deep]
    if len(cosines) < MIN_CALIBRATION_HITS:
        return [c.vector if c.vector_rank is not None else 0.0 for c in candidates]
    mean, deviation = statistics.fmean(cosines), statistics.pstdev(cosines)
    if deviation <= 0:
        return [0.0] * len(candidates)
    scale = deviation * spread
    return [
        min(1.0, max(0.0, (c.vector - mean) / scale)) if c.vector_rank is not None else 0.0
        for c in candidates
    ]


def with_evidence(
    candidates: list[Candidate], analysis: QueryAnalysis, bonus: float, pool: int | None = None
) -> list[Candidate]:
    """Attach exact (capped at 1), importance, recency (min-max over the pool's
    candidates, clamped to 0..1) and the calibrated cosine, each measured against the
    pool: the candidates `pooled` leaves not `deep` (all of them without a `pool`)."""
    if pool is not None:
        candidates = pooled(candidates, pool)
    strengths = exact_strengths(candidates, analysis, bonus)
    calibrated = calibrated_cosines(candidates)
    stamps = [c.record.occurred_at.timestamp() for c in candidates]
    inside = [s for c, s in zip(candidates, stamps, strict=True) if not c.deep]
    low, high = (min(inside), max(inside)) if inside else (0.0, 0.0)
    span = high - low
    out = []
    for c, strength, ts, cal in zip(candidates, strengths, stamps, calibrated, strict=True):
        recency = min(1.0, max(0.0, (ts - low) / span)) if span > 0 else 0.0
        out.append(
            replace(
                c,
                exact=min(1.0, strength),
                vector_calibrated=cal,
                importance=c.record.importance,
                recency=recency,
                keyword=min(1.0, c.keyword),
            )
        )
    return out
