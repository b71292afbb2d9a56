"""A role said by its noun and the same role said by its verb, told by the word's stem.

"Jonah trains with Ines" and "Jonah's personal trainer is Marcus" share no frame: one says
the role with a verb, the other with the noun made from that verb. Their stems meet
(`train`), so the two are one role of the subject, whose holder changed; "Anika no longer
has a personal trainer" ends it. No role is named here: the noun and the verb are paired
by their shape alone ("manager" / "manages", "teacher" / "teaches", "coach" / "coaches").

Only people are held this way: both values must be among the producer's people, so that
"Theo works at Northwind" is no holder of "Theo's social worker". A verb with a direct
object says what the subject does to another ("Pavel manages Ana"), not who does it to
the subject, so only a verb and a preposition ("trains with", "reports to") count.
"""

from dataclasses import dataclass
from functools import lru_cache

from readmodel.text import STOPWORDS
from worker.consolidation.openframes import CLAUSE_CACHE_SIZE, Clause, OpenReading
from worker.consolidation.openwords import CUES, NOISE, SUBJECT, content

SUFFIXES = ("ers", "ors", "ists", "ing", "er", "or", "ist", "es", "s")
"""Endings of agent nouns, of the present verb and of a verb used as a noun's modifier
("climbing partner"), which the stem drops."""
MIN_STEM = 4
PREPOSITIONS = frozenset("with to from for under at by".split())
COPULAS = frozenset({"is", "are", "am", "'m", "'re", "'s"})


@dataclass(frozen=True)
class Role:
    """`stems`: the stems its noun's words or its verb give; `frame`: the clause with the
    holder masked; `holder`: the holder's words; `noun`: said by a noun ("<s> 's N is _")."""

    stems: frozenset[str]
    frame: str
    holder: tuple[str, ...]
    noun: bool


def stem(word: str) -> str:
    """ "trainer", "trains" -> "train"; "manager", "manages" -> "manag"; "studies" ->
    "study"."""
    if word.endswith("ies") and len(word) > MIN_STEM:
        return word[:-3] + "y"
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > MIN_STEM else word


def _masked(words: tuple[str, ...], at: int) -> str:
    return " ".join((*words[:at], "_"))


def verb_role(c: Clause) -> Role | None:
    """ "<s> trains with P": a present verb, a preposition, then the holder (to the end);
    or "<s> is tutored by P", the verb's past participle after a copula, whose stem is
    taken both ways its "-ed" may have been added ("mentor-ed", "supervise-d")."""
    w = c.words
    if len(w) < 4 or w[0] != SUBJECT or c.markers:
        return None
    participle = ""
    if len(w) > 4 and w[1] in COPULAS and w[2].endswith("ed") and w[3] == "by":
        participle = w[2]
        w = (w[0], w[2][:-2], w[3], *w[4:])
    verb, prep = w[1], w[2]
    if verb in STOPWORDS or verb in NOISE or verb[0] == "'" or CUES.fullmatch(verb):
        return None
    if prep not in PREPOSITIONS or verb.endswith("ed") or len(stem(verb)) < MIN_STEM:
        return None
    holder = w[3:]
    if not content(list(holder)) or SUBJECT in holder:
        return None
    stems = {stem(verb), stem(participle[:-1])} if participle else {stem(verb)}
    return Role(frozenset(stems), _masked(c.words, len(c.words) - len(holder)), holder, False)


def noun_role(c: Clause) -> Role | None:
    """ "<s> 's N is P": a noun of the subject (at most three words) and its holder."""
    w = c.words
    if len(w) < 5 or w[:2] != (SUBJECT, "'s") or c.markers or "is" not in w[3:6]:
        return None
    cut = w.index("is", 3)
    noun, holder = w[2:cut], w[cut + 1 :]
    if len(content(list(noun))) != len(noun) or not content(list(holder)) or SUBJECT in holder:
        return None
    stems = frozenset(s for s in map(stem, noun) if len(s) >= MIN_STEM)
    return Role(stems, _masked(w, cut + 1), holder, noun=True) if stems else None


@lru_cache(maxsize=CLAUSE_CACHE_SIZE)
def role_of(c: Clause) -> Role | None:
    return noun_role(c) or verb_role(c)


def held_by_people(role: Role, r: OpenReading) -> bool:
    """The holder is one of the statement's people (the producer named it)."""
    return bool(set(content(list(role.holder))) & set(r.subjects))


def role_stems(r: OpenReading) -> set[tuple[str, str]]:
    """(subject, stem) of each role the statement says with a person as its holder, or
    ends."""
    out = {
        (c.subject, s)
        for c in r.clauses
        if (role := role_of(c)) and held_by_people(role, r)
        for s in role.stems
    }
    for e in r.endings:
        if e.asserted and e.ends_only:
            out |= {(subject, s) for subject in r.subjects for s in ended_stems(e.span)}
    return out


def ended_stems(span: tuple[str, ...]) -> frozenset[str]:
    """The stems of a noun named as ended ("no longer has a study partner")."""
    return frozenset(s for s in map(stem, content(list(span))) if len(s) >= MIN_STEM)
