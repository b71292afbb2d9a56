"""Components in 0..1 that do not come from the engine: exact match, importance, recency."""

import re
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


def with_evidence(
    candidates: list[Candidate], analysis: QueryAnalysis, bonus: float
) -> list[Candidate]:
    """Attach exact (capped at 1), importance and recency (min-max over the candidates)."""
    strengths = exact_strengths(candidates, analysis, bonus)
    stamps = [c.record.occurred_at.timestamp() for c in candidates]
    low, high = (min(stamps), max(stamps)) if stamps else (0.0, 0.0)
    span = high - low
    out = []
    for c, strength, ts in zip(candidates, strengths, stamps, strict=True):
        recency = (ts - low) / span if span > 0 else 0.0
        out.append(
            replace(
                c,
                exact=min(1.0, strength),
                importance=c.record.importance,
                recency=recency,
                keyword=min(1.0, c.keyword),
            )
        )
    return out
