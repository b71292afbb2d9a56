"""The unit every recall stage works on."""

import uuid
from dataclasses import dataclass, fields
from typing import Any, Final

from readmodel.store import Record, TextStats
from readmodel.text import text_stats as stats_of_text


@dataclass(frozen=True)
class Candidate:
    """A record with its evidence and the score stages build from it.

    Evidence components are in 0..1 (`feedback` is a signed bias); ranks are 1-based
    and None when the record was not in that list; `gate` is the factor the relevance
    gate applied to query-independent parts (1.0 when not gated); `stats` are the text's
    stored `TextStats` when the store had them (read them with `text_stats`);
    `snippet`: the passages of a long text the result returns instead of the whole
    (indices into `TextStats.passages`; `readmodel.recall.snippets`), None for all of it.
    `deep`: fetched beyond the first `RecallConfig.depth` ranks of both lists (a large
    limit searches deeper): ranked after every candidate of the pool (`in_pool`).
    """

    record: Record
    vector: float = 0.0
    vector_calibrated: float = 0.0
    keyword: float = 0.0
    vector_rank: int | None = None
    keyword_rank: int | None = None
    exact: float = 0.0
    date: float = 0.0
    importance: float = 0.0
    recency: float = 0.0
    feedback: float = 0.0
    fused: float = 0.0
    gate: float = 1.0
    decay: float = 1.0
    recency_bias: float = 0.0
    rerank: float | None = None
    score: float = 0.0
    state_replaces: uuid.UUID | None = None
    outdated_by: uuid.UUID | None = None
    stats: TextStats | None = None
    snippet: tuple[int, ...] | None = None
    deep: bool = False

    @property
    def id(self) -> uuid.UUID:
        return self.record.id

    @property
    def semantic(self) -> bool:
        """Found by meaning, not only by words."""
        return self.vector_rank is not None


FIELDS: Final = frozenset(f.name for f in fields(Candidate))


def in_pool(c: Candidate, pool: int) -> bool:
    """Among the first `pool` hits of a search, or fetched whatever the limit (a standing
    instruction): the candidates recall measures evidence against (the mean cosine, a
    term's document frequency, the span of times), so that a recall's order does not
    depend on how deep its limit made the search (`RecallConfig.depth`)."""
    ranks = [r for r in (c.vector_rank, c.keyword_rank) if r is not None]
    return not ranks or min(ranks) <= pool


def replace(c: Candidate, /, **changes: Any) -> Candidate:
    """`dataclasses.replace` for a candidate, a fifth of its cost: every stage replaces
    every candidate, about 250 calls per recall, which took 0.6 to 0.8 of 5.8 CPU ms
    (10,000 memories, same process, alternating). Fields are copied as they are, not
    run through `__init__` again (a frozen dataclass has no conversion to redo). A
    record of another text drops the stored stats of the old one."""
    unknown = changes.keys() - FIELDS
    if unknown:
        raise TypeError(f"Candidate has no field(s) {sorted(unknown)}")
    new = object.__new__(Candidate)
    values = new.__dict__
    values.update(c.__dict__)
    values.update(changes)
    record = changes.get("record")
    if record is not None and "stats" not in changes and record.text != c.record.text:
        values["stats"] = None
        values["snippet"] = None
    return new


def _min_rank(a: int | None, b: int | None) -> int | None:
    ranks = [r for r in (a, b) if r is not None]
    return min(ranks) if ranks else None


def best_evidence(kept: Candidate, other: Candidate) -> Candidate:
    """`kept` with the best evidence of both, of one record found twice (by two queries,
    or as itself and in place of a state it replaced): the higher of each component,
    the better of each rank. Scores are left as `kept` has them."""
    return replace(
        kept,
        vector=max(kept.vector, other.vector),
        vector_calibrated=max(kept.vector_calibrated, other.vector_calibrated),
        keyword=max(kept.keyword, other.keyword),
        exact=max(kept.exact, other.exact),
        date=max(kept.date, other.date),
        vector_rank=_min_rank(kept.vector_rank, other.vector_rank),
        keyword_rank=_min_rank(kept.keyword_rank, other.keyword_rank),
    )


def people(c: Candidate) -> frozenset[str]:
    """The entities the producer named, case-folded."""
    return frozenset(e.casefold() for e in c.record.entities)


def text_stats(c: Candidate) -> TextStats:
    """The stems and token count of the candidate's text: as stored, or computed from
    the text for a memory stored without them (an older store: ranked alike, slower)."""
    return c.stats if c.stats is not None else stats_of_text(c.record.text)
