"""Whether a newer fact replaces an older one: same subject, same attribute, a new value.

Decided from two `StatementFeatures` alone (no text, no vectors), so it can run on
features stored at ingest. Attributes of tier "slot" hold one value at a time: a newer
different value replaces the older one with or without a change word ("Ben works at
Acme", later "Ben works at Globex"). Tier "generic" (habits, plans, event dates) needs a
change word in the newer statement; tier "multi" (pets one has, allergies) only loses a
value when it is retracted ("rehomed Miso"). A retraction ("no longer vegetarian",
"sold the Civic", "Ivan and Laura broke up") invalidates an older fact of the same
subject with that value, whatever its attribute, and is itself replaced by a newer
value of its attribute.
"""

from dataclasses import dataclass

from contracts.memory import Relation
from readmodel.text import STOPWORDS
from worker.consolidation.frames import ANY, Mode, Tier
from worker.consolidation.policy import CHANGE_CUES
from worker.consolidation.slotvalues import ended_terms, ends, same_value, value_terms
from worker.consolidation.statements import Slot, StatementFeatures

IS, ENDED, CHANGED = Mode.IS.value, Mode.ENDED.value, Mode.CHANGED.value


@dataclass(frozen=True)
class Update:
    relation: Relation
    reason: str


def implicit_update(older: StatementFeatures, newer: StatementFeatures) -> Update | None:
    """The first (in slot order) reason why `newer` replaces `older`, or None. A retraction
    that comes with a new value ("broke up with Ivo; seeing Selma now") is that value's
    statement: only the value is compared with newer ones."""
    stated = {(o.subject, o.attribute) for o in older.slots if o.mode == IS}
    for n in newer.slots:
        for o in older.slots:
            if o.mode == ENDED and (o.subject, o.attribute) in stated:
                continue
            if same_subject(o.subject, n.subject):
                found = compare(o, n, newer.cue)
                if found is not None:
                    return found
    return None


def subject_key(subject: str) -> str:
    """What `same_subject` needs equal: the subject, or for an event its kind alone."""
    return "event:" + subject[6:].split("|")[0] if subject.startswith("event:") else subject


def slot_keys(features: StatementFeatures) -> list[str]:
    """The index keys a fact is stored under (`Memory.slot_keys`): `subject|attribute`
    for each slot (a retraction of any attribute: `subject|*`), and for each stated value
    `subject|=term` per word a retraction of any attribute could end it by (`ends`)."""
    keys: set[str] = set()
    for s in features.slots:
        subject = subject_key(s.subject)
        keys.add(f"{subject}|{s.attribute}")
        if s.mode == IS:
            keys.update(f"{subject}|={t}" for t in ended_terms(s.value, s.attribute))
    return sorted(keys)


def _any_retraction_keys(subject: str, s: Slot) -> set[str]:
    """What a retraction of any attribute ("no longer has X") can end: a stated value of
    its subject sharing a word with X (`ends`), stored under `subject|=word`."""
    return {f"{subject}|={t}" for t in value_terms(s.value)}


def candidate_keys(features: StatementFeatures) -> tuple[str, ...]:
    """The stored keys of every fact `implicit_update` could relate to these features, in
    either time order: the same subject and attribute, a retraction of any attribute of
    the subject, and for a retraction of any attribute the stated values of the subject
    it could end. Two facts that share none of these keys never update one another (see
    `compare`)."""
    keys: set[str] = set()
    for s in features.slots:
        subject = subject_key(s.subject)
        keys.update((f"{subject}|{s.attribute}", f"{subject}|{ANY}"))
        if s.attribute == ANY:
            keys.update(_any_retraction_keys(subject, s))
    return tuple(sorted(keys))


def older_keys(features: StatementFeatures) -> tuple[str, ...]:
    """The keys of `candidate_keys` under which an older memory may be replaced by these
    features; under the others only newer memories can relate to them. A retraction of
    any attribute (`subject|*`) replaces nothing newer that it is compared with, and an
    older retraction of any attribute replaces nothing at all; a value of an attribute
    that accumulates (tier "multi": pets one has) replaces no older value (see `compare`:
    a multi value only loses to a retraction). A retraction of any attribute reaches only
    the stated values sharing one of its words, not every fact of the subject (which
    grows with the bank: pets one has accumulate). So, for a fact stated after most of
    what the bank holds, those keys reach few memories however large the bank grows."""
    keys: set[str] = set()
    for s in features.slots:
        if s.mode == IS and s.tier == Tier.MULTI.value:
            continue
        subject = subject_key(s.subject)
        if s.attribute != ANY:
            keys.add(f"{subject}|{s.attribute}")
        else:
            keys.update(_any_retraction_keys(subject, s))
    return tuple(sorted(keys))


def same_subject(a: str, b: str) -> bool:
    """Equal keys; for events, the same kind of event with compatible owner and
    qualifiers ("my appointment" and "the dentist appointment")."""
    if a == b:
        return True
    if not (a.startswith("event:") and b.startswith("event:")):
        return False
    head_a, owner_a, quals_a = a[6:].split("|")
    head_b, owner_b, quals_b = b[6:].split("|")
    qa, qb = set(quals_a.split()), set(quals_b.split())
    owners = owner_a == owner_b or not owner_a or not owner_b
    return head_a == head_b and owners and (qa <= qb or qb <= qa)


def compare(o: Slot, n: Slot, cue: str | None) -> Update | None:
    where = f"{n.subject}: {o.attribute}"
    if n.mode == ENDED:
        same = n.attribute in (ANY, o.attribute)
        if o.mode == IS and same and ends(n.value, o.value, o.attribute):
            return Update(Relation.INVALIDATED_BY, f"{where} {o.value!r} ended ({n.value!r})")
        return None
    if o.attribute != n.attribute:
        return None
    if o.mode == ENDED:
        return _after_retraction(o, n, cue, where)
    if o.mode == CHANGED:
        return None
    if n.mode == CHANGED:
        return Update(Relation.EVOLVED_INTO, f"{where} {o.value!r} changed ({cue or 'switched'})")
    if same_value(o.value, n.value) or n.tier == Tier.MULTI.value:
        return None
    generic = Tier.GENERIC.value in (o.tier, n.tier)
    if generic and (cue is None or not _same_plan(o, n)):
        return None
    because = f" ({cue})" if cue else ""
    return Update(Relation.EVOLVED_INTO, f"{where} {o.value!r} -> {n.value!r}{because}")


def _after_retraction(o: Slot, n: Slot, cue: str | None, where: str) -> Update | None:
    """ "Priyanka used to live in Jersey City", later "Priyanka moved to Brooklyn": the
    attribute's current state is the newer value."""
    if n.mode != IS or n.tier == Tier.MULTI.value:
        return None
    if same_value(n.value, o.value):
        return Update(Relation.EVOLVED_INTO, f"{where} {n.value!r} again")
    if Tier.GENERIC.value in (o.tier, n.tier) and cue is None:
        return None
    return Update(Relation.EVOLVED_INTO, f"{where} no longer {o.value!r}, now {n.value!r}")


def _same_plan(o: Slot, n: Slot) -> bool:
    """Two plans are one plan when they share a word besides their places and dates,
    function words and change words ("a new city" and "some new shoes" are two plans)."""
    if o.attribute != "plan":
        return True
    shared = value_terms(o.value) & value_terms(n.value)
    plain = {t for t in shared if t.isalpha() and t not in STOPWORDS and t not in CUE_WORDS}
    return bool(plain)


CUE_WORDS = frozenset(w for cue in CHANGE_CUES for w in cue.split())
