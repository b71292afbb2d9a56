"""Labels on results and notes on the response. Annotation only: ranking is unchanged."""

import uuid

from contracts.memory import State
from contracts.recall import Label
from readmodel.keywords import stem, tokens
from readmodel.recall.candidate import Candidate
from readmodel.recall.query import QueryAnalysis


def labels_of(c: Candidate) -> list[Label]:
    out: list[Label] = []
    if not c.semantic and (c.keyword > 0 or c.exact > 0):
        out.append("keyword-only")
    if c.gate < 1.0:
        out.append("relevance_gated")
    if c.record.state is State.SUPERSEDED:
        out.append("superseded")
    return out


def low_confidence(shown: list[Candidate]) -> bool:
    """Every shown result is keyword-only or gated (and there is at least one)."""
    return bool(shown) and all(
        {"keyword-only", "relevance_gated"} & set(labels_of(c)) for c in shown
    )


def overlap(analysis: QueryAnalysis, text: str) -> float:
    """Share of the query's salient terms found in `text`."""
    if not analysis.stems:
        return 0.0
    present = {stem(t) for t in tokens(text)}
    return sum(1 for s in analysis.stems if s in present) / len(analysis.stems)


def direct_answer(
    shown: list[Candidate], analysis: QueryAnalysis, min_overlap: float, margin: float
) -> uuid.UUID | None:
    """The top result, when it is current, covers the query's terms and clearly leads."""
    if not shown:
        return None
    top = shown[0]
    if top.record.state is not State.CURRENT or overlap(analysis, top.record.text) < min_overlap:
        return None
    second = shown[1].score if len(shown) > 1 else 0.0
    return top.id if top.score - second >= margin else None
