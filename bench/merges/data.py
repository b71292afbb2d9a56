"""The labelled pairs of the merge benchmark and the checks a file must pass."""

import json
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

Kind = Literal["distinct", "restatement"]
Split = Literal["dev", "test"]
SPLITS: tuple[Split, ...] = ("dev", "test")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Statement(_Model):
    """One side of a pair: what the producer sends (the text, the people it names) and,
    for a distinct fact, the query that must still find it."""

    text: str = Field(min_length=1)
    query: str | None = Field(default=None, min_length=1)
    entities: list[str] = Field(default_factory=list)


class Pair(_Model):
    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,100}$")
    kind: Kind
    family: str = Field(pattern=r"^[a-z0-9_]{1,60}$")
    split: Split
    a: Statement
    b: Statement

    @model_validator(mode="after")
    def _distinct_facts_have_queries(self) -> Self:
        if self.kind == "distinct" and (self.a.query is None or self.b.query is None):
            raise ValueError(f"pair {self.id}: a distinct pair needs a query on both sides")
        if self.a.text == self.b.text:
            raise ValueError(f"pair {self.id}: both sides say {self.a.text!r}")
        return self


class MergesFile(_Model):
    name: str = "merges"
    note: str = ""
    pairs: list[Pair] = Field(min_length=1)


def default_path() -> Path:
    return Path(str(resources.files("bench").joinpath("data/merges.json")))


def _texts(pair: Pair) -> frozenset[str]:
    return frozenset(" ".join(t.split()).casefold() for t in (pair.a.text, pair.b.text))


def check(data: MergesFile) -> None:
    """Ids are unique, a family holds one kind of pair, and no pair (its two texts, in
    either order, ignoring case and spacing) is written twice, so no pair can sit in
    both halves."""
    ids = Counter(p.id for p in data.pairs)
    repeated = sorted(i for i, n in ids.items() if n > 1)
    if repeated:
        raise ValueError(f"pair ids repeat: {repeated[:5]}")
    kinds: dict[str, set[str]] = {}
    for pair in data.pairs:
        kinds.setdefault(pair.family, set()).add(pair.kind)
    mixed = sorted(f for f, k in kinds.items() if len(k) > 1)
    if mixed:
        raise ValueError(f"families hold both kinds of pair: {mixed}")
    seen: dict[frozenset[str], str] = {}
    for pair in data.pairs:
        key = _texts(pair)
        if key in seen:
            raise ValueError(f"pairs {seen[key]} and {pair.id} hold the same two statements")
        seen[key] = pair.id


def load_merges(path: Path) -> MergesFile:
    data = MergesFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    check(data)
    return data


def of_split(data: MergesFile, split: Split) -> list[Pair]:
    return [p for p in data.pairs if p.split == split]
