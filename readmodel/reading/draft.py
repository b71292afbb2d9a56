"""The clause as it passes through the stages: tokens and what each stage added."""

from dataclasses import dataclass, field

from readmodel.reading.statement import Aspect, Named, Polarity, Tense, Value
from readmodel.reading.words import Token


@dataclass(frozen=True)
class Draft:
    """`used`: indices of tokens a stage has taken (subject, verb group, values), so the
    frame and content are what is left. `unread`: why a stage could not go on."""

    tokens: tuple[Token, ...]
    speaker: str | None = None
    entities: tuple[str, ...] = ()
    subject: tuple[str, ...] = ()
    subject_end: int = 0
    named: Named = ""
    verb_at: int = -1
    predicate: str = ""
    tense: Tense = "present"
    aspect: Aspect = "simple"
    polarity: Polarity = "positive"
    passive: bool = False
    modal: bool = False
    values: tuple[Value, ...] = ()
    spans: tuple[tuple[int, int, Value], ...] = ()
    patient: tuple[str, ...] = ()
    agent: tuple[str, ...] = ()
    used: frozenset[int] = field(default_factory=frozenset)
    unread: str | None = None
