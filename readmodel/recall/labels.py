"""Labels on results and notes on the response. Annotation only: ranking is unchanged."""

import uuid

from contracts.memory import State
from contracts.recall import Label
from readmodel.recall.candidate import Candidate, text_stats
from readmodel.recall.query import QueryAnalysis

SEMANTIC_FLOOR = 0.3
"""Vector similarity (cosine clipped to 0..1) from which a result counts as found by
meaning (`SEDIMENT_RECALL_SEMANTIC_FLOOR`). Dense search has no score floor and returns
its top N whatever they are, so being in the dense list is no evidence in a small bank.
With the shipped static model and with MiniLM, a memory on the query's topic scores
0.35 to 0.8 and an unrelated one -0.1 to 0.15."""


def semantic(c: Candidate, floor: float = SEMANTIC_FLOOR) -> bool:
    """Found by meaning, not only by words: the vector similarity clears `floor`."""
    return c.vector >= floor


def topical(c: Candidate, floor: float = SEMANTIC_FLOOR) -> bool:
    """Some evidence that the candidate is about the query: a query word in it (keyword
    or exact match), a date the query names, or meaning at the semantic floor. What
    has none is what the query-independent parts alone (importance, recency) put in
    the list: a memory `low_confidence` would call a weak dense match and no word."""
    return semantic(c, floor) or c.keyword > 0 or c.exact > 0 or c.date > 0


def labels_of(c: Candidate, semantic_floor: float = SEMANTIC_FLOOR) -> list[Label]:
    out: list[Label] = []
    if not semantic(c, semantic_floor) and (c.keyword > 0 or c.exact > 0):
        out.append("keyword-only")
    if c.gate < 1.0:
        out.append("relevance_gated")
    if c.record.state is State.SUPERSEDED:
        out.append("superseded")
    if c.stats is not None and c.stats.instruction is not None:
        out.append("instruction")
    return out


def low_confidence(shown: list[Candidate], semantic_floor: float = SEMANTIC_FLOOR) -> bool:
    """No shown result has semantic evidence unless it was gated (and there is at least
    one result): every result is keyword-only, gated, or a weak dense match."""
    return bool(shown) and all(c.gate < 1.0 or not semantic(c, semantic_floor) for c in shown)


def overlap(analysis: QueryAnalysis, c: Candidate) -> float:
    """Share of the query's salient terms found in the candidate's text."""
    if not analysis.stems:
        return 0.0
    present = text_stats(c).stems
    return sum(1 for s in analysis.stems if s in present) / len(analysis.stems)


def direct_answer(
    shown: list[Candidate], analysis: QueryAnalysis, min_overlap: float, margin: float
) -> uuid.UUID | None:
    """The top result, when it is current, covers the query's terms and clearly leads."""
    if not shown:
        return None
    top = shown[0]
    if top.record.state is not State.CURRENT or overlap(analysis, top) < min_overlap:
        return None
    second = shown[1].score if len(shown) > 1 else 0.0
    return top.id if top.score - second >= margin else None
