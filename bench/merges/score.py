"""Verdicts on one pair from what its bank holds and what recall returned, and the
figures of many verdicts. Pure: no store, no clock."""

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.merges.data import Pair
from bench.record import (
    DistinctFigures,
    MergeError,
    MergeKindFigures,
    MergeMode,
    RestatementFigures,
)


@dataclass(frozen=True)
class Hit:
    """One recall result, as far as the verdict needs it."""

    id: uuid.UUID
    kind: str
    text: str


@dataclass(frozen=True)
class Held:
    """An observation of the bank: its text and its members."""

    text: str
    sources: frozenset[uuid.UUID]


@dataclass(frozen=True)
class Seen:
    """One pair's bank after consolidation: the two raw memories' ids (first and second
    in event time), its observations, the raw memories found superseded, and what each
    side's query returned (empty for a restatement, which has no queries)."""

    first: uuid.UUID
    second: uuid.UUID
    observations: tuple[Held, ...]
    superseded: frozenset[uuid.UUID]
    hits_first: tuple[Hit, ...] = ()
    hits_second: tuple[Hit, ...] = ()


@dataclass(frozen=True)
class Verdict:
    pair: Pair
    merged: bool
    hidden_first: bool
    hidden_second: bool
    superseded: bool
    observation: str | None
    """The text of the observation holding both memories, when there is one."""

    @property
    def label(self) -> str:
        """What went wrong, or `ok`: for a distinct pair a false merge comes first, then
        a hidden statement; for a restatement, not merged."""
        if self.pair.kind == "restatement":
            return "ok" if self.merged else "not_merged"
        if self.merged:
            return "false_merge"
        if self.hidden_first or self.hidden_second:
            return "hidden"
        return "ok"


def _norm(text: str) -> str:
    return " ".join(text.split())


def visible(memory: uuid.UUID, text: str, hits: Sequence[Hit]) -> bool:
    """The fact shows: its raw memory was returned, or an observation whose text is the
    statement's own (spacing aside)."""
    want = _norm(text)
    return any(h.id == memory or (h.kind == "observation" and _norm(h.text) == want) for h in hits)


def judge(pair: Pair, seen: Seen) -> Verdict:
    both = {seen.first, seen.second}
    holding = next((o for o in seen.observations if both <= o.sources), None)
    checked = pair.kind == "distinct"
    return Verdict(
        pair=pair,
        merged=holding is not None,
        hidden_first=checked and not visible(seen.first, pair.a.text, seen.hits_first),
        hidden_second=checked and not visible(seen.second, pair.b.text, seen.hits_second),
        superseded=bool(both & seen.superseded),
        observation=holding.text if holding else None,
    )


def _rate(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


def distinct_figures(verdicts: Iterable[Verdict]) -> DistinctFigures:
    vs = [v for v in verdicts if v.pair.kind == "distinct"]
    false, first = sum(v.merged for v in vs), sum(v.hidden_first for v in vs)
    second = sum(v.hidden_second for v in vs)
    return {
        "pairs": len(vs),
        "false_merges": false,
        "false_merge_rate": _rate(false, len(vs)),
        "statements": 2 * len(vs),
        "hidden": first + second,
        "hidden_rate": _rate(first + second, 2 * len(vs)),
        "hidden_first": first,
        "hidden_second": second,
        "superseded": sum(v.superseded for v in vs),
    }


def restatement_figures(verdicts: Iterable[Verdict]) -> RestatementFigures:
    vs = [v for v in verdicts if v.pair.kind == "restatement"]
    merged = sum(v.merged for v in vs)
    return {
        "pairs": len(vs),
        "merged": merged,
        "merge_rate": _rate(merged, len(vs)),
        "superseded": sum(v.superseded for v in vs),
    }


def overall(verdicts: Sequence[Verdict]) -> MergeKindFigures:
    return {"distinct": distinct_figures(verdicts), "restatement": restatement_figures(verdicts)}


def families(verdicts: Sequence[Verdict]) -> dict[str, list[Verdict]]:
    """Verdicts by family, families in the order they first appear."""
    out: dict[str, list[Verdict]] = {}
    for v in verdicts:
        out.setdefault(v.pair.family, []).append(v)
    return out


def distinct_by_family(verdicts: Sequence[Verdict]) -> dict[str, DistinctFigures]:
    return {
        f: distinct_figures(vs)
        for f, vs in families(verdicts).items()
        if vs[0].pair.kind == "distinct"
    }


def restatement_by_family(verdicts: Sequence[Verdict]) -> dict[str, RestatementFigures]:
    return {
        f: restatement_figures(vs)
        for f, vs in families(verdicts).items()
        if vs[0].pair.kind == "restatement"
    }


def mode_figures(delivery: str, verdicts: Sequence[Verdict]) -> MergeMode:
    return {
        "delivery": delivery,
        "overall": overall(verdicts),
        "distinct_by_family": distinct_by_family(verdicts),
        "restatement_by_family": restatement_by_family(verdicts),
    }


def errors(mode: str, verdicts: Iterable[Verdict]) -> list[MergeError]:
    """Every pair whose verdict is not `ok`, with both texts and the merged text."""
    return [
        {
            "mode": mode,
            "pair": v.pair.id,
            "kind": v.pair.kind,
            "family": v.pair.family,
            "verdict": f"hidden ({_sides(v)})" if v.label == "hidden" else v.label,
            "first": v.pair.a.text,
            "second": v.pair.b.text,
            "observation": v.observation,
        }
        for v in verdicts
        if v.label != "ok"
    ]


def _sides(v: Verdict) -> str:
    return " and ".join(
        side for side, hidden in (("first", v.hidden_first), ("second", v.hidden_second)) if hidden
    )
