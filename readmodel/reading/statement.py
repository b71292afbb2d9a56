"""What a reading holds: plain, frozen data, JSON-friendly (`to_json`)."""

from dataclasses import dataclass
from typing import Literal

ValueType = Literal["person", "place", "organisation", "date", "time", "number", "quantity", "name"]
Polarity = Literal["positive", "negative"]
Tense = Literal["past", "present", "future"]
Aspect = Literal["simple", "perfect", "progressive", "habitual", "starting", "ending"]
Kind = Literal["state", "episode"]


@dataclass(frozen=True, order=True)
class Value:
    """A value the clause names, with its type, its normal form ("18:00", "7",
    "initech", "03-14") and the preposition that gives it its role when one contrasts
    ("from", "to", "before"): "from Berlin to Munich" is not "from Munich to Berlin"."""

    type: ValueType
    text: str
    role: str = ""


@dataclass(frozen=True)
class Clause:
    """One clause of one subject.

    `subject`: the chain from owner to thing ("dan", "wife") for "Dan's wife"; "i" is the
    speaker. `predicate`: the lemma of the main verb ("be" for a copula). `frame`: the
    clause with subject and values masked. `content`: stems of the words that are neither
    subject, value, main verb nor function word: what is said of the subject besides its
    values. `passive`: said in the passive ("is employed by X"). `modal`: said as possible,
    wanted or owed, not as so ("might try", "should move", "could switch")."""

    subject: tuple[str, ...]
    predicate: str
    frame: str
    content: frozenset[str]
    values: tuple[Value, ...]
    polarity: Polarity
    tense: Tense
    aspect: Aspect
    change: str | None
    kind: Kind
    passive: bool = False
    modal: bool = False


@dataclass(frozen=True)
class Reading:
    """A statement's clauses, or why it could not be read (`unread`); `words` are the
    stems of every content word of the text, what a statement that cannot be read is
    compared by."""

    clauses: tuple[Clause, ...]
    words: frozenset[str]
    unread: str | None = None

    @property
    def readable(self) -> bool:
        return self.unread is None and bool(self.clauses)


def describe(clause: Clause) -> str:
    """A clause's reading in words, as `inspect` shows it."""
    values = ", ".join(
        f"{v.type} {v.role + ' ' if v.role else ''}{v.text!r}" for v in clause.values
    )
    values = values or "none"
    parts = [
        f"subject {' > '.join(clause.subject)}",
        f"frame {clause.frame!r}",
        f"values {values}",
        clause.polarity,
        clause.tense,
        clause.aspect,
        clause.kind,
    ]
    if clause.passive:
        parts.append("passive")
    if clause.modal:
        parts.append("modal")
    if clause.change:
        parts.append(f"change {clause.change!r}")
    return "; ".join(parts)
