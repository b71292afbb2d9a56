"""What a reading holds: plain, frozen data, JSON-friendly (`to_json`)."""

from dataclasses import dataclass
from typing import Literal, TypeVar

ValueType = Literal["person", "place", "organisation", "date", "time", "number", "quantity", "name"]
Polarity = Literal["positive", "negative"]
Tense = Literal["past", "present", "future"]
Aspect = Literal["simple", "perfect", "progressive", "habitual", "starting", "ending"]
Kind = Literal["state", "episode"]
Named = Literal["", "definite", "owned"]
_T = TypeVar("_T", bound=str)


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
        wanted or owed, not as so ("might try", "should move", "could switch"). `named`: how the
    subject is named when it is a thing: "definite" after "the" or "this" ("the launch", "the
    status of the CRM rollout"), "owned" after a possessive ("my lease"), "" for a person's
    name, a pronoun or anything else."""

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
    named: Named = ""


@dataclass(frozen=True)
class Reading:
    """A statement's clauses, or why it could not be read (`unread`); `words` are the
    stems of every content word of the text (for a long text, one digest of them), what
    a statement that cannot be read is compared by."""

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


_POLARITIES: tuple[Polarity, ...] = ("positive", "negative")
_TENSES: tuple[Tense, ...] = ("past", "present", "future")
_ASPECTS: tuple[Aspect, ...] = (
    "simple",
    "perfect",
    "progressive",
    "habitual",
    "starting",
    "ending",
)
_KINDS: tuple[Kind, ...] = ("state", "episode")
_NAMED: tuple[Named, ...] = ("", "definite", "owned")
_TYPES: tuple[ValueType, ...] = (
    "person",
    "place",
    "organisation",
    "date",
    "time",
    "number",
    "quantity",
    "name",
)


def to_json(reading: Reading) -> list[object]:
    """A reading as plain JSON lists, for storing with its memory (`from_json`)."""
    clauses = [
        [
            list(c.subject),
            c.predicate,
            c.frame,
            sorted(c.content),
            [[v.type, v.text, v.role] for v in c.values],
            c.polarity,
            c.tense,
            c.aspect,
            c.change,
            c.kind,
            c.passive,
            c.modal,
            c.named,
        ]
        for c in reading.clauses
    ]
    return [clauses, sorted(reading.words), reading.unread]


def from_json(data: object) -> Reading:
    """The reading `to_json` wrote. Raises ValueError or TypeError on any other shape."""
    if not isinstance(data, list) or len(data) != 3:
        raise ValueError("a reading is [clauses, words, unread]")
    clauses, words, unread = data
    return Reading(
        tuple(_clause(c) for c in _list(clauses)),
        frozenset(_str(w) for w in _list(words)),
        None if unread is None else _str(unread),
    )


def _clause(data: object) -> Clause:
    row = _list(data)
    if len(row) != 13:
        raise ValueError("a clause has 13 fields")
    subject, predicate, frame, content, values, polarity, tense, aspect = row[:8]
    change, kind, passive, modal, named = row[8:]
    if not isinstance(passive, bool) or not isinstance(modal, bool):
        raise TypeError("passive and modal are booleans")
    return Clause(
        subject=tuple(_str(s) for s in _list(subject)),
        predicate=_str(predicate),
        frame=_str(frame),
        content=frozenset(_str(w) for w in _list(content)),
        values=tuple(_value(v) for v in _list(values)),
        polarity=_one_of(polarity, _POLARITIES),
        tense=_one_of(tense, _TENSES),
        aspect=_one_of(aspect, _ASPECTS),
        change=None if change is None else _str(change),
        kind=_one_of(kind, _KINDS),
        passive=passive,
        modal=modal,
        named=_one_of(named, _NAMED),
    )


def _value(data: object) -> Value:
    row = _list(data)
    if len(row) != 3:
        raise ValueError("a value is [type, text, role]")
    return Value(_one_of(row[0], _TYPES), _str(row[1]), _str(row[2]))


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _one_of(value: object, allowed: tuple[_T, ...]) -> _T:
    for option in allowed:
        if value == option:
            return option
    raise ValueError(f"{value!r} is none of {', '.join(allowed)}")
