"""Components in 0..1 that do not come from the engine: exact match, importance,
recency, and the cosine calibrated against the query's other dense hits."""

import re
import statistics
from collections import Counter
from collections.abc import Iterable

from readmodel.recall.candidate import Candidate, replace, text_stats
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


def exact_strengths(
    candidates: list[Candidate], analysis: QueryAnalysis, bonus: float
) -> list[float]:
    """Sum over matched query terms of 1/df (df over this query's exact-match set), times
    `bonus` when the term is a whole word of the key, title or entities."""
    wanted = set(analysis.stems)
    labels = [wanted & _label_stems(c.record) for c in candidates]
    hits = [(wanted & text_stats(c).stems) | lab for c, lab in zip(candidates, labels, strict=True)]
    df = Counter(t for h in hits for t in h)
    out = []
    for h, lab in zip(hits, labels, strict=True):
        out.append(sum((bonus if t in lab else 1.0) / df[t] for t in h))
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
    dense search did not return.

    A raw cosine says little on its own: one embedder puts every text of a bank within
    0.2 of 0.5, another spreads them over the whole range, and one query's best match
    may sit where another query's tenth does. Measured against the query's own hits,
    a memory that stands out scores high whichever model embedded it, and a sharper
    dense signal (a few hits far above the rest) weighs more than a flat one."""
    cosines = [c.vector for c in candidates if c.vector_rank is not None]
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
    candidates: list[Candidate], analysis: QueryAnalysis, bonus: float
) -> list[Candidate]:
    """Attach exact (capped at 1), importance, recency (min-max over the candidates) and
    the calibrated cosine."""
    strengths = exact_strengths(candidates, analysis, bonus)
    calibrated = calibrated_cosines(candidates)
    stamps = [c.record.occurred_at.timestamp() for c in candidates]
    low, high = (min(stamps), max(stamps)) if stamps else (0.0, 0.0)
    span = high - low
    out = []
    for c, strength, ts, cal in zip(candidates, strengths, stamps, calibrated, strict=True):
        recency = (ts - low) / span if span > 0 else 0.0
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
