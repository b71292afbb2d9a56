"""What a statement says, as plain data: `statement_features(text, entities)`.

Pure and deterministic (no clock, no model, no I/O), computed from the text and the
producer's entities alone, so it can be computed once at ingest and stored. A statement
is a *fact* when it gives an attribute of a subject a value (or retracts one): its slots.
Everything else (something that happened, a feeling, an action on an object) is an
*episode*: it has no slots, so it never replaces anything and is never replaced.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Literal

from readmodel.passages import passage_spans
from readmodel.text import TEXT_CACHE_SIZE
from worker.consolidation import readers as rd
from worker.consolidation import rules
from worker.consolidation.anchors import Prefilter
from worker.consolidation.frames import (
    ANY,
    DECLARED,
    DECLARED_ATTRIBUTES,
    FRAMES,
    Frame,
    Mode,
    Tier,
)
from worker.consolidation.lexicon import PREFERENCE_KINDS, SCHOOL_WORDS
from worker.consolidation.openwords import ALSO
from worker.consolidation.policy import change_cue
from worker.consolidation.slotvalues import value_terms, words
from worker.consolidation.subjects import (
    CAPITAL_STOP,
    Context,
    antecedent,
    clause_subject,
    is_name,
    local_subject,
    name_key,
    owner_key,
)

StatementKind = Literal["fact", "episode", "other"]
SPEAKER = re.compile(r"^\s*([A-Z][\w.-]*)\s*:\s*")
OPENERS = re.compile(
    r"^(?:(?:by\s+the\s+way|quick\s+update|guess\s+what|oh|so|well|ok|okay|hey|anyway|btw|fyi|"
    r"update|news|ha|haha|wow|yeah|yes|no|correction|reminder|actually|also)\b[,:!.]?\s+)+",
    re.I,
)
SENTENCE_END = re.compile(
    r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bMrs)(?<!\bJr)(?<!\bCo)(?<!\bInc)(?<!\d)"
    r"[.!?;]+(?:\s+|$)|[.!?;]+$"
)
EPISODE_HINT = re.compile(
    r"\b\w+ed\b|\b(?:went|got|made|took|bought|ran|met|saw|felt|had|was|were|became|came|"
    r"happy|sad|thrilled|nervous|excited|worried|anxious|relaxed|calm)\b",
    re.I,
)
TASTE_DISLIKE = re.compile(r"\b(?:hates?|dislikes?|detests?|can't\s+stand|cannot\s+stand)\b", re.I)


@dataclass(frozen=True)
class Slot:
    """One attribute value of one subject: `mode` is "is", "ended" or "changed"; `tier`
    is "slot" (one value at a time), "generic" (needs a change word to be replaced) or
    "multi" (values accumulate)."""

    subject: str
    attribute: str
    value: str
    mode: str = "is"
    tier: str = "slot"


@dataclass(frozen=True)
class StatementFeatures:
    """Plain, JSON-serialisable: `asdict` and `from_json` round-trip."""

    speaker: str | None
    kind: StatementKind
    cue: str | None
    slots: tuple[Slot, ...] = ()

    @property
    def is_fact(self) -> bool:
        return self.kind == "fact"

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, object]) -> "StatementFeatures":
        raw = data.get("slots") or []
        slots = tuple(Slot(**s) for s in raw) if isinstance(raw, list) else ()
        speaker, cue = data.get("speaker"), data.get("cue")
        kind = str(data.get("kind", "other"))
        return cls(
            speaker if isinstance(speaker, str) else None,
            kind if kind in ("fact", "episode") else "other",  # type: ignore[arg-type]
            cue if isinstance(cue, str) else None,
            slots,
        )


def statement_features(text: str, entities: Iterable[str] = ()) -> StatementFeatures:
    return _features(text, tuple(sorted(set(entities))))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _features(text: str, entities: tuple[str, ...]) -> StatementFeatures:
    speaker, body = split_speaker(text.replace("’", "'"))
    if passage_spans(text):
        # A text of several passages (an answer, a document) is read for no slot: the
        # rules read sentences, and a long text's sentences name versions, sums and
        # examples as often as a value of its speaker's.
        told: StatementKind = "episode" if EPISODE_HINT.search(body) else "other"
        return StatementFeatures(speaker.lower() if speaker else None, told, change_cue(text))
    people = frozenset(e.split()[0].lower() for e in entities if e.strip())
    me = speaker.lower() if speaker else "user"
    ctx = Context(me, antecedent(body, people, me), people)
    sentences = [s.strip() for s in SENTENCE_END.split(body) if s.strip()]
    asked = {s for s in re.findall(r"[^.!?;]*\?", body)}
    primary = clause_subject(sentences[0], ctx) if sentences else None
    found: list[Slot] = []
    for sentence in sentences:
        if any(sentence in q for q in asked) or sentence.lower().startswith(("if ", "what if")):
            continue
        found += frame_slots(sentence, ctx, primary)
        found += rule_slots(sentence, body, ctx, primary)
    slots = _unique(found)
    kind: StatementKind = "fact" if slots else ("episode" if EPISODE_HINT.search(body) else "other")
    return StatementFeatures(speaker.lower() if speaker else None, kind, change_cue(text), slots)


def split_speaker(text: str) -> tuple[str | None, str]:
    """ "Ana: I moved" -> ("Ana", "I moved"); "Correction: ..." is not a speaker."""
    found = SPEAKER.match(text)
    if (
        found
        and found.group(1).lower() not in CAPITAL_STOP
        and found.group(1).lower()
        not in (
            "correction",
            "reminder",
            "update",
            "note",
            "news",
        )
    ):
        body = text[found.end() :]
        return found.group(1), OPENERS.sub("", body).strip()
    return None, OPENERS.sub("", text).strip()


ADDED = re.compile(rf"\b(?:{ALSO})\b", re.I)
"""A value said to be one more ("Ana also works out at the pool", "I'm learning Welsh too"):
it accumulates beside the older, whatever its attribute's tier."""
FRAME_FILTER = Prefilter([frame.pattern for frame in FRAMES])
"""Runs only the frames whose required words a sentence holds: about 5 of the 109 on the
scale workload's statements and on LoCoMo's turns, with the same slots found."""


def frame_slots(sentence: str, ctx: Context, primary: str | None) -> list[Slot]:
    out: list[Slot] = []
    for i in FRAME_FILTER.candidates(sentence):
        frame = FRAMES[i]
        for m in frame.pattern.finditer(sentence):
            out += _from_match(frame, m, sentence, ctx, primary)
    declared = DECLARED.search(sentence)
    if declared:
        noun = declared.group("attr").lower()
        attribute = DECLARED_ATTRIBUTES.get(noun, noun.rstrip("s"))
        subject, _ = local_subject(sentence, declared.start(), ctx)
        if subject:
            out.append(Slot(subject, attribute, "", Mode.CHANGED.value))
    return out


def _from_match(
    frame: Frame, m: re.Match[str], sentence: str, ctx: Context, primary: str | None
) -> list[Slot]:
    groups = m.groupdict()
    mode, attribute = frame.mode, frame.attribute
    if frame.subject == "pair":
        a, b = (ctx.me if g == "I" else name_key(g) for g in (groups["a"], groups["b"]))
        tier = frame.tier.value
        return [Slot(a, "partner", b, mode.value, tier), Slot(b, "partner", a, mode.value, tier)]
    raw = groups.get("val")
    value = frame.read(raw) if raw else frame.read(sentence[m.end() :])
    if not value:
        return []
    subject: str | None
    if frame.subject == "owner":
        owner = groups["owner"]
        subject = ctx.me if owner.lower() == "me" else owner_key(owner, ctx)
    elif frame.subject == "thing":
        subject = name_key(groups["thing"])
    elif frame.subject == "primary":
        subject = primary
    else:
        subject, negated = local_subject(sentence, m.start(), ctx)
        if negated and mode is Mode.IS:
            mode = Mode.ENDED
    if subject is None or subject == value.lower():
        return []
    attribute, value = _refine(attribute, value, groups, m, ctx)
    if not attribute:
        return []
    if frame.read is rd.person and not _names_someone(value):
        return []
    tier = frame.tier
    if mode is Mode.IS and ADDED.search(sentence):
        tier = Tier.MULTI
    return [Slot(subject, attribute, value, mode.value, tier.value)]


def _refine(
    attribute: str, value: str, groups: dict[str, str | None], m: re.Match[str], ctx: Context
) -> tuple[str, str]:
    """Attributes that depend on the words matched: preference kinds, tastes, schools, and
    "is with X" (a partner when X is one of the producer's people, else an employer)."""
    if attribute == "with:":
        person = value.split()[0].lower() in ctx.entities
        return ("partner" if person else "employer"), value
    if attribute == "preference:":
        kind = (groups.get("attr") or "").lower()
        return f"preference:{PREFERENCE_KINDS.get(kind, kind)}", value
    if attribute == "taste:":
        subject_words = " ".join(w for w in words(value.lower()) if w not in ("the", "a", "an"))
        polarity = "dislikes" if TASTE_DISLIKE.search(m.group(0)) else "likes"
        return f"taste:{subject_words}", polarity
    schoolish = any(w.lower() in SCHOOL_WORDS for w in words(value))
    trigger = m.group(0).lower()
    if schoolish and (attribute == "residence" or (attribute == "employer" and "start" in trigger)):
        return "school", value
    if attribute == "school" and not schoolish:
        return "", value
    return attribute, value


def _names_someone(value: str) -> bool:
    first = value.split()[0] if value.split() else ""
    return is_name(first) or first.lower().startswith("dr")


def rule_slots(sentence: str, body: str, ctx: Context, primary: str | None) -> list[Slot]:
    found = [
        *rules.phones(sentence, ctx, primary),
        *rules.emails(sentence, ctx, primary),
        *rules.settings(sentence, ctx, primary),
        *rules.deadlines(sentence, ctx, primary),
        *rules.copulas(sentence, body, ctx),
        *rules.amounts(sentence, ctx, primary),
        *rules.places(sentence, ctx, primary),
        *rules.routines(sentence, ctx, primary),
    ]
    if not any(attribute.startswith("deadline") for _, attribute, _, _ in found):
        found += rules.events(sentence, ctx, primary)
    return [
        Slot(subject, attribute, value, Mode.IS.value, tier.value)
        for subject, attribute, value, tier in found
        if subject and value
    ]


def _unique(slots: Sequence[Slot]) -> tuple[Slot, ...]:
    """One slot per subject, attribute, mode and value; a specific attribute hides the
    retraction of the same value by a generic frame."""
    seen: dict[tuple[str, str, str, frozenset[str]], Slot] = {}
    for s in slots:
        seen.setdefault((s.subject, s.attribute, s.mode, value_terms(s.value)), s)
    specific_ends = {
        (s.subject, value_terms(s.value))
        for s in seen.values()
        if s.mode == Mode.ENDED.value and s.attribute != ANY
    }
    return tuple(
        s
        for s in seen.values()
        if not (s.attribute == ANY and (s.subject, value_terms(s.value)) in specific_ends)
    )
