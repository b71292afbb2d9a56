"""Deterministic order, then the shown window: floor, prefer observations, limit, budget."""

import dataclasses
from dataclasses import dataclass

from readmodel.recall.candidate import Candidate
from readmodel.recall.labels import topical
from readmodel.recall.observations import holds, members, take
from readmodel.recall.snippets import returned_tokens


def sort_key(c: Candidate) -> tuple[bool, float, float, int]:
    """The pool before what a deeper search added (`Candidate.deep`), then score, then
    newest first, then id: exact ties never depend on arrival order. The id as its
    integer orders as its text does (fixed-width lowercase hex) without formatting it."""
    return (c.deep, -c.score, -c.record.occurred_at.timestamp(), c.id.int)


def rank(candidates: list[Candidate], limit: int) -> list[Candidate]:
    return sorted(candidates, key=sort_key)[:limit]


def tokens_of(c: Candidate) -> int:
    """Whitespace tokens of what the result returns (its snippet, or its whole text):
    what `max_tokens` budgets."""
    return returned_tokens(c)


@dataclass(frozen=True)
class Window:
    """What is shown, and what cut the rest, so `explain` can say which rule acted.

    `dropped` counts raw memories left out because an observation in the window
    stands in for them; `below_min_score` candidates scored under the floor;
    `budget_cut` is true when the token budget, not the limit, closed the window;
    `without_evidence`: of the window filled without the evidence rule, how many
    results lack topical evidence (0 when the rule is off).
    """

    shown: list[Candidate]
    dropped: int = 0
    below_min_score: int = 0
    budget_cut: bool = False
    without_evidence: int = 0


def fill_window(
    ordered: list[Candidate],
    limit: int,
    min_score: float = 0.0,
    max_tokens: int | None = None,
    prefer_observations: bool = False,
    evidence_floor: float | None = None,
) -> Window:
    """The window, and with `evidence_floor` (the semantic floor) only candidates with
    topical evidence (`labels.topical`) in it: the window filled without the rule says
    how many it left out."""
    if evidence_floor is None:
        return _fill(ordered, limit, min_score, max_tokens, prefer_observations)
    floor = evidence_floor
    kept = [c for c in ordered if topical(c, floor)]
    window = _fill(kept, limit, min_score, max_tokens, prefer_observations)
    if len(kept) == len(ordered):
        return window
    every = _fill(ordered, limit, min_score, max_tokens, prefer_observations)
    missing = sum(1 for c in every.shown if not topical(c, floor))
    return dataclasses.replace(window, without_evidence=missing)


def _fill(
    ordered: list[Candidate],
    limit: int,
    min_score: float,
    max_tokens: int | None,
    prefer_observations: bool,
) -> Window:
    """Walk the final order and fill up to `limit` results.

    Scores below `min_score` are skipped. With `prefer_observations`, an observation
    taken into the window removes its members already shown, and members met later
    are skipped, so their slots backfill from further down. The walk stops at the
    first candidate that would exceed the whitespace-token budget (counted only when
    there is one).
    """
    passing = [c for c in ordered if c.score >= min_score]
    shown: list[Candidate] = []
    covering: list[Candidate] = []
    dropped = 0
    for c in passing:
        if len(shown) >= limit:
            break
        if prefer_observations and any(holds(o, c) for o in covering):
            dropped += 1
            continue
        after, left = take(shown, c) if prefer_observations else ([*shown, c], 0)
        if max_tokens is not None and sum(tokens_of(s) for s in after) > max_tokens:
            return Window(shown, dropped, len(ordered) - len(passing), budget_cut=True)
        shown = after
        dropped += left
        if members(c):
            covering.append(c)
    return Window(shown, dropped, len(ordered) - len(passing))


def floor_and_truncate(
    ordered: list[Candidate], limit: int, min_score: float, max_tokens: int | None
) -> list[Candidate]:
    """Drop scores below `min_score`, keep `limit`, and stop before the whitespace-token
    budget would be exceeded."""
    return fill_window(ordered, limit, min_score, max_tokens).shown
