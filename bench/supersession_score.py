"""Scoring the supersession benchmark: pure functions of the labels and of what was superseded.

A memory that should be superseded counts as found when its superseder is a newer state of
the same history (the labelled next value, or a later one): precision and recall count
those. The false-supersession rate is the share of memories that should stay current but
were superseded.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bench.record import SupersessionFigures
from contracts.base import AwareDatetime

Verdict = Literal["found", "wrong", "missed", "false", "kept"]
NO_ATTRIBUTE = "(none)"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LabelledStatement(_Model):
    """One statement and its labels; only `text`, `occurred_at` and `entities` are retained."""

    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,100}$")
    text: str = Field(min_length=1)
    occurred_at: AwareDatetime
    entities: list[str] = Field(default_factory=list)
    subject: str
    attribute: str | None = None
    role: str
    chain: str | None = None
    value: str | None = None
    superseded_by: str | None = None
    cue: bool | None = None
    held_out: bool = False
    family: str = ""
    other_chains: list[str] = Field(default_factory=list)


class LabelledBank(_Model):
    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,60}$")
    voice: str = ""
    statements: list[LabelledStatement] = Field(min_length=1)


class SupersessionFile(_Model):
    name: str = "supersession"
    split: str = ""
    note: str = ""
    banks: list[LabelledBank] = Field(min_length=1)


@dataclass(frozen=True)
class Judged:
    statement: LabelledStatement
    verdict: Verdict
    predicted_by: str | None


def acceptable(s: LabelledStatement, bank: Sequence[LabelledStatement]) -> set[str]:
    """Newer states of the same history with another value: what may supersede `s`.

    A statement that changes two things at once names its second history in `other_chains`.
    """
    if s.superseded_by is None or s.chain is None:
        return set()
    return {
        m.id
        for m in bank
        if m.occurred_at > s.occurred_at
        and (
            (m.chain == s.chain and m.value != s.value)
            or (s.chain in m.other_chains and s.superseded_by == m.id)
        )
    }


def judge(bank: Sequence[LabelledStatement], predicted: Mapping[str, str | None]) -> list[Judged]:
    """`predicted`: statement id -> the statement id that superseded it (None: current)."""
    out = []
    for s in bank:
        by = predicted.get(s.id)
        if s.superseded_by is None:
            verdict: Verdict = "kept" if by is None else "false"
        elif by is None:
            verdict = "missed"
        else:
            verdict = "found" if by in acceptable(s, bank) else "wrong"
        out.append(Judged(s, verdict, by))
    return out


def _share(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def figures(judged: Iterable[Judged]) -> SupersessionFigures:
    """Precision over what was superseded, recall over what should be, and the false rate."""
    count = {v: 0 for v in ("found", "wrong", "missed", "false", "kept")}
    for j in judged:
        count[j.verdict] += 1
    predicted = count["found"] + count["wrong"] + count["false"]
    gold = count["found"] + count["wrong"] + count["missed"]
    stay = count["false"] + count["kept"]
    return {
        "precision": _share(count["found"], predicted),
        "recall": _share(count["found"], gold),
        "false_supersession_rate": _share(count["false"], stay),
        "should_supersede": gold,
        "superseded": predicted,
        "found": count["found"],
        "wrong_superseder": count["wrong"],
        "missed": count["missed"],
        "false": count["false"],
        "should_stay": stay,
    }


def grouped(judged: Sequence[Judged], key: str) -> dict[str, SupersessionFigures]:
    """Figures per attribute type, role or phrasing family of the judged statement."""
    groups: dict[str, list[Judged]] = {}
    for j in judged:
        value = getattr(j.statement, key) or NO_ATTRIBUTE
        groups.setdefault(str(value), []).append(j)
    return {k: figures(v) for k, v in sorted(groups.items())}


def cueless(judged: Sequence[Judged], bank_of: Mapping[str, LabelledStatement]) -> list[Judged]:
    """States whose labelled superseder names no change word at all."""
    return [
        j
        for j in judged
        if j.statement.superseded_by is not None and bank_of[j.statement.superseded_by].cue is False
    ]
