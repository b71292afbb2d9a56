"""Statements read without a list of attributes: clauses, their subject, frame and markers.

The attribute rules (frames.py, rules.py) know how people state a residence or an
employer; they cannot know every attribute. This reading knows none: a clause is its
subject (resolved as `subjects.py` does) and its words with the subject masked (`<s>`),
so that two clauses of one subject can be compared word by word (`openupdates.py`):
the words they share are the frame, the words that differ are the values. Besides its
clauses, a reading keeps the values the statement names as over (`openvalues.py`); what
it says of a known thing's date or status is the statement reader's
(`readmodel.reading.things`).

Pure and deterministic, from the text and the producer's entities alone, so it is
computed once at ingest and stored with the memory's features (`features.py`); a
statement longer than `MAX_TOKENS` is not read (long turns are conversation, not a
stated fact).
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from readmodel.text import STOPWORDS, TEXT_CACHE_SIZE
from worker.consolidation.openvalues import MONTHS, Ending, endings
from worker.consolidation.openwords import (
    MAX_TOKENS,
    NOISE,
    PRESUPPOSED,
    SUBJECT,
    content,
    cue_of,
    markers,
    tokens,
)
from worker.consolidation.statements import SENTENCE_END, split_speaker, statement_features
from worker.consolidation.subjects import FIRST_PERSON, Context, antecedent, clause_subject, kin

SPLIT = re.compile(
    r"(?:[,;:]\s+|\s+(?:and|so|but)\s+)(?=(?:and\s+|so\s+)?(?:I|I'm|I've|my|My|he|she|He|She|"
    r"his|her|His|Her|the|The|it's|we|We|they|They|[A-Z][a-z]+)\b)"
)
REWRITES = (
    (re.compile(r"\b(?P<who>i|[a-z]+)(?:'ve|'s)? (?:(?:has|have) a (?:new )?|"
                r"(?:got|found|hired|chose|picked|(?:moved|switched|gone|went) to) a new )"
                r"(?P<noun>[a-z]+(?: [a-z]+)?), "
                r"(?P<value>[^,;]+)$"), "{who}'s {noun} is {value}"),
    (re.compile(r"\b(?P<who>i|[a-z]+) switched to (?P<value>.+?) as (?P<owner>my|his|her|their|"
                r"[a-z]+'s) (?P<noun>[a-z]+(?: [a-z]+)?)$"), "{owner} {noun} is {value}"),
    (re.compile(r"\b(?P<owner>my|his|her|their|our|[a-z]+'s) "
                r"(?P<noun>[a-z]+(?: (?!ha[sv]e?\b)[a-z]+)?) (?:has |have )?(?:changed|"
                r"(?:gone|went|is|are|has gone|have gone) (?:up|down)|rose|risen|fell|fallen|"
                r"dropped|increased|decreased) to "
                r"(?P<value>[^,;]+)$"), "{owner} {noun} is {value}"),
    (re.compile(r"\b(?:i|[a-z]+) (?:(?:has|have) )?(?:changed|switched) (?P<owner>my|his|her|their|"
                r"our) (?P<noun>[a-z]+(?: [a-z]+)?) to (?P<value>[^,;]+)$"),
     "{owner} {noun} is {value}"),
    (re.compile(r"^(?:new|updated|changed) (?P<noun>[a-z]+(?: [a-z]+)?): (?P<value>[^,;]+)$"),
     "my {noun} is {value}"),
)  # fmt: skip
"""Ways of naming a holder that say "<s>'s N is V": "Bram has a new housemate, Siobhan"
(or found, got, hired, moved to one), "I switched to Dr. Kim as my doctor", "my shift
has changed to nights", "my rent went up to 950 dollars" (a noun's value said by what it
changed, rose or fell to), "I changed my GP to Dr. Kim" and a note's "New email: V"
(the speaker's)."""


CLAUSE_CACHE_SIZE: Final = 1 << 15
"""Entries of each per-clause cache (`openkinds.object_kind`, `openkeys.head`, ...) and
of the frame alignment by pair of clauses' words (`openupdates`): a statement is compared
with each statement of its subject it meets by key, and each comparison asks the same of
both clauses again; a frame said of many people ("<s> lives in _") is one entry."""


@dataclass(frozen=True)
class Clause:
    """`subject`: its key (`subjects.py`); `words`: lowercased, the subject as `<s>` and
    qualifiers (`NOISE`) dropped; `markers`: which of `MARKERS` it has (sorted); `cue`: a
    change word of its sentence; `named`: its words written as names or numbers."""

    subject: str
    words: tuple[str, ...]
    markers: tuple[str, ...]
    cue: str | None
    named: tuple[str, ...] = ()


@dataclass(frozen=True)
class OpenReading:
    """`subjects`: who the statement may be about (clause subjects, the producer's
    people, the speaker when it says "I"); `words`: its content words; `endings`: values
    it names as over; `one_off`: every sentence is said of a short while."""

    clauses: tuple[Clause, ...]
    subjects: tuple[str, ...]
    words: tuple[str, ...]
    endings: tuple[Ending, ...]
    one_off: bool


def _masked(raw: list[str], subject: str, ctx: Context) -> tuple[str, ...]:
    """The words with every mention of the subject as `<s>` (a possessive keeps `'s`)."""
    pronouns = {"i", "me", "my", "myself"} if subject == ctx.me else set()
    if subject == ctx.antecedent:
        pronouns |= {"he", "she", "him", "his", "her"}
    out: list[str] = []
    kept = [w for w in raw if w not in NOISE]
    for i, w in enumerate(kept):
        if w in pronouns or w == subject:
            out.append(SUBJECT)
            after = kept[i + 1] if i + 1 < len(kept) else ""
            if w in ("my", "his") or (w == "her" and after and after not in STOPWORDS):
                out.append("'s")
        else:
            out.append(w)
    while len(out) > 1 and out[0] != SUBJECT and SUBJECT in out:
        out.pop(0)
    return tuple(out)


def split_sentences(body: str) -> list[str]:
    """Sentences with their end marks kept (a question is told by its `?`)."""
    out, start = [], 0
    for m in SENTENCE_END.finditer(body):
        out.append(body[start : m.end()].strip())
        start = m.end()
    out.append(body[start:].strip())
    return [s for s in out if s]


CLAUSE_START = r"(?:^|(?<=, )|(?<=; )|(?<= so )|(?<= and )|(?<= but )|(?<= that ))"
"""Where a clause may start inside a sentence ("Ana left, so Tom is my manager now",
"Omar mentioned that Ivo is his trainer now")."""
HOLDER_FIRST = re.compile(
    CLAUSE_START
    + r"(?P<value>(?-i:[A-Z])[\w.'-]*(?: (?-i:[A-Z])[\w'-]*)?) is (?P<owner>my|his|her|their|"
    r"(?-i:[A-Z])[a-z]+'s) (?:new )?(?P<noun>[a-z]+(?: (?!now\b)[a-z]+)?)(?P<rest>(?: now)?)$",
    re.I,
)
"""A holder named first: "Mrs. Cole is Lin's landlord now" says "Lin's landlord is Mrs.
Cole now" (only a name is a holder: "The plan is my idea" is not), also as the last
clause of a sentence ("Ana retired, so Tom is my manager now")."""


HOLDER_NOT = re.compile(
    CLAUSE_START
    + r"(?P<value>(?-i:[A-Z])[\w.'-]*(?: (?-i:[A-Z])[\w'-]*)?) (?P<not>is no longer|isn't|is not) "
    r"(?P<owner>my|his|her|their|(?-i:[A-Z])[a-z]+'s) (?P<noun>[a-z]+(?: (?!any)[a-z]+)?)"
    r"(?P<more> any ?more)?$",
    re.I,
)
"""A holder named first and said to hold no more: "Tom isn't Lin's landlord anymore"
says "Lin's landlord is no longer Tom"."""


def _before(body: str, at: int) -> str:
    """The words before a rewritten clause, a reported one ending "that" cut off as a
    clause of its own ("Kai mentioned that ..." -> "Kai mentioned; ...")."""
    said = body[:at]
    return said[: -len(" that ")] + "; " if said.endswith(" that ") else said


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _rewritten(sentence: str) -> str:
    body = sentence.rstrip(".!")
    first = HOLDER_FIRST.search(body)
    if first:
        owner, noun, value, rest = first.group("owner", "noun", "value", "rest")
        said = f"{owner[0].upper()}{owner[1:]} {noun} is {value}{rest}."
        return _before(body, first.start()) + said
    gone = HOLDER_NOT.search(body)
    if gone and (gone.group("more") or gone.group("not") == "is no longer"):
        owner, noun, value = gone.group("owner", "noun", "value")
        said = f"{owner[0].upper()}{owner[1:]} {noun} is no longer {value}."
        return _before(body, gone.start()) + said
    for pattern, template in REWRITES:
        found = pattern.search(body.lower())
        if found:
            start = found.start()
            said = template.format(**{k: v for k, v in found.groupdict().items()})
            said = re.sub(r"^i's ", "my ", said)
            return body[:start] + _recase(said, body[start:]) + "."
    return sentence


def _recase(said: str, original: str) -> str:
    """The rewritten words with the capitals they had (names stay names)."""
    cased = {w.lower(): w for w in re.findall(r"[\w'.-]+", original)}
    return " ".join(cased.get(w, w) for w in said.split(" "))


CONTRACTED = re.compile(r"\bI(?=['’](?:m|ve)\b)|\b(?:[Hh]e|[Ss]he)(?=['’]s\b)")
""""I'm", "I've": the speaker, as "I" is ("I'll", "I'd" are plans and wishes, not read);
"she's", "he's": the pronoun ("is" or "has"), not an owner as "Mia's" is."""


def _subject(part: str, ctx: Context) -> str | None:
    """The clause's subject when it is the speaker or one of the producer's people (not a
    word that opens a sentence: "Let's ...", "Long time no see"); a relative named by role
    ("Bram's landlord") is its owner's attribute here, so that "Bram's landlord is X" and
    "Bram no longer has a landlord" share a subject; one referred to by a pronoun ("she's
    moved" after "my mum called") is not read here."""
    plain = " ".join(w for w in part.split() if w.lower() not in NOISE)
    subject = clause_subject(CONTRACTED.sub(lambda m: m.group(0) + " ", plain), ctx)
    owner = subject.split(">")[0] if subject else None
    if subject and ">" in subject and subject.split(">")[1] not in plain.lower():
        return None
    return owner if owner == ctx.me or owner in ctx.entities else None


def _named(part: str) -> tuple[str, ...]:
    """Words written as names or numbers inside the clause ("Dr. Ortiz", "May 14"), as
    `tokens` splits them ("Gold's" is `gold`, "5th." is `5th`): what a value looks like
    when no change word says a value changed."""
    found = re.findall(r"[\w'.-]+", part)
    capitals = [w for w in found[1:] if w[0].isupper() and w != "I"]
    return tuple(
        sorted({t for w in capitals for t in tokens(w) if t[0] != "'"}
               | {t for t in tokens(part) if any(ch.isdigit() for ch in t)})
    )  # fmt: skip


THESE_DAYS = re.compile(
    r"\b(?:these days|at the moment|right now)\b|"
    rf"\bsince (?:(?:last|early|mid|late) )?(?:(?:{MONTHS}|spring|summer|autumn|fall|winter|"
    r"year|month|week)(?: \d{1,2}(?:st|nd|rd|th)?)?|(?:19|20)\d\d)(?: (?:19|20)\d\d)?\b"
    r"(?=\s*(?:$|[,;.!?]))",
    re.I,
)
"""Said of the present, like "now" (`NOISE`): no part of a value ("Porto these days"); a
closing "since May" (or "since last year", "since 2023") says how long a state has held,
not what it is ("I've been living in Denver since May" says "<s> live in _")."""


PRESUPPOSED_CLAUSE = re.compile(
    r"(?:^|(?<=[,;:] ))(?:since|now that|as(?! of\b)|because|given that),?\s+(?P<clause>[^,;?]+)",
    re.I,
)
"""A clause a question takes as given, up to the next comma: "Now that Tom lives in
Bergen, how far is it from Oslo?" states where Tom lives (the question is not read)."""


ASIDE = re.compile(
    r"(?:,\s*|\s+)(?:by the way|btw|fyi|anyway|though|lol|haha|just so you know|"
    r"for what it's worth|if you're curious|if you were wondering|instead)\s*(?=$|[,;.!?])",
    re.I,
)
"""A closing aside, said to the listener, no part of the clause ("Pia takes the tram to
work now, by the way" says "<s> takes the tram to work"); so is a closing "instead",
whose change the clause's cue keeps."""


def _parts(sentence: str) -> list[tuple[str, str]]:
    """The sentence's clauses to read, each with the words its cue is read from: every
    clause of a statement (`SPLIT`), after its rewriting (`_rewritten`); of a question
    only what it presupposes (`PRESUPPOSED_CLAUSE`), each rewritten on its own, its cue
    read with the words that presuppose it ("now that"). A presupposing word that opens
    a clause is no part of it ("Because Ana is my dentist now" says "Ana is my dentist
    now")."""
    if "?" not in sentence:
        said = _rewritten(sentence)
        return [(PRESUPPOSED.sub("", p.strip(), count=1), said) for p in SPLIT.split(said)]
    found = PRESUPPOSED_CLAUSE.finditer(sentence)
    return [(_rewritten(m.group("clause").strip()), m.group(0)) for m in found]


def _clauses(sentence: str, ctx: Context) -> list[Clause]:
    out = []
    for part, said in _parts(sentence):
        subject = _subject(part, ctx)
        raw = tokens(ASIDE.sub(" ", THESE_DAYS.sub(" ", part)))
        if subject is None or not raw:
            continue
        words = _reported(_masked(raw, subject, ctx))
        clause = Clause(subject, words, tuple(sorted(markers(part))), cue_of(said), _named(part))
        out.append(clause)
        if (passive := _passive(clause, ctx.me)) is not None:
            out.append(passive)
        out += _shared_home(clause)
    return out


REPORTING = frozenset("says said tells told mentioned texted messaged wrote emailed".split())


def _reported(w: tuple[str, ...]) -> tuple[str, ...]:
    """ "<s> told me (that) <s> lives in _": what the subject says of itself is the clause
    ("<s> lives in _"), as if said directly."""
    if len(w) < 4 or w[0] != SUBJECT or w[1] not in REPORTING:
        return w
    i = 2 + (w[2] in ("me", "us"))
    i += i < len(w) and w[i] == "that"
    return w[i:] if i < len(w) - 1 and w[i] == SUBJECT else w


def _passive(c: Clause, me: str) -> Clause | None:
    """ "Maria manages me" said as "<s> is managed by maria" of the speaker: who does
    something to the speaker holds a role of theirs (`openroles.verb_role`), which "my
    manager is Keith" names by its noun."""
    w = c.words
    if len(w) != 3 or w[0] != SUBJECT or w[2] != "me" or c.subject == me:
        return None
    verb = w[1]
    if not verb.endswith("s") or verb.endswith("ss") or verb in STOPWORDS or verb[0] == "'":
        return None
    base = verb[:-2] if verb.endswith(("ches", "shes", "xes")) else verb[:-1]
    done = base + ("d" if base.endswith("e") else "ed")
    return Clause(me, (SUBJECT, "is", done, "by", c.subject), c.markers, c.cue, (c.subject,))


LIVES = frozenset({"lives", "live", "living"})
SHARES = frozenset({"shares", "share", "sharing"})
HOMES = frozenset("flat house place apartment home room".split())
AUXILIARIES = frozenset({"is", "are", "am", "'s", "'m", "'re", "has", "have", "'ve", "been"})
"""Words of "be" and "have" between a subject and its verb."""


def _shared_home(c: Clause) -> list[Clause]:
    """ "<s> lives with Oskar", "<s> shares a flat with Grace": the people named are the
    subject's housemates, "<s> 's housemate is oskar", so that "Pavel's housemate is
    Callum now" or "Bram no longer has a housemate" meets it, and one who shares a flat
    or has a housemate lives with them ("lives alone now" meets it). Only names hold it
    ("lives with his parents" names no housemate)."""
    w = c.words
    if len(w) < 4 or w[0] != SUBJECT or c.markers:
        return []
    if len(w) > 4 and w[1:4] == ("'s", "housemate", "is") and set(w[4:]) - {"and"} <= set(c.named):
        return [Clause(c.subject, (SUBJECT, "lives", "with", *w[4:]), (), c.cue, c.named)]
    i = 1
    while i < len(w) and w[i] in AUXILIARIES:
        i += 1
    if i < len(w) and w[i] in LIVES:
        i += 1
    elif i + 2 < len(w) and w[i] in SHARES and w[i + 1] in ("a", "the") and w[i + 2] in HOMES:
        i += 3
    else:
        return []
    if i >= len(w) or w[i] != "with":
        return []
    holder = w[i + 1 :]
    names = [h for h in holder if h != "and"]
    if not names or not set(names) <= set(c.named) or holder[-1] == "and":
        return []
    out = [Clause(c.subject, (SUBJECT, "'s", "housemate", "is", *holder), (), c.cue, c.named)]
    if w[i - 1] not in LIVES:
        out.append(Clause(c.subject, (SUBJECT, "lives", "with", *holder), (), c.cue, c.named))
    return out


ATTRIBUTE = re.compile(r"[a-z]+(?:_[a-z]+)?")
"""An attribute named by a plain word or two joined by `_` ("job_title", said "job title")."""


def _attribute_clauses(
    text: str, entities: tuple[str, ...] | list[str], clauses: list[Clause], ctx: Context, body: str
) -> list[Clause]:
    """What the attribute rules read as a slot of one value at a time, said as its noun:
    "Bram is with Dev" is also "<s> 's partner is dev", so that "Bram no longer has a
    partner" or "Bram switched to Kim as his partner" meets it. Only an attribute named
    by one plain word, of the speaker or one of the producer's people, and not of a
    subject the statement already names a noun of ("<s> 's KTP number is ..." is not
    read again as a phone). A job the rules read ("Ivo is a pharmacist") is "<s> 's job
    title is pharmacist", one at a time as they hold it."""
    owned = {c.subject for c in clauses if c.words[:2] == (SUBJECT, "'s")}
    out = []
    for slot in statement_features(text, entities).slots:
        if slot.mode != "is" or slot.tier != "slot" or not ATTRIBUTE.fullmatch(slot.attribute):
            continue
        value = tuple(w for w in tokens(slot.value) if w[0] != "'")
        words = (SUBJECT, "'s", *slot.attribute.split("_"), "is", *value)
        if not value or slot.subject not in (ctx.me, *ctx.entities) or slot.subject in owned:
            continue
        named = tuple(sorted(set(value))) if slot.value[:1].isupper() else ()
        out.append(Clause(slot.subject, words, tuple(sorted(markers(body))), cue_of(body), named))
    return out


def _given(sentence: str) -> str:
    """What a sentence states: a statement itself, a question only the clauses it
    presupposes (`PRESUPPOSED_CLAUSE`), each a sentence ("Now that I'm a nurse, what
    changes?" states "I'm a nurse.")."""
    if "?" not in sentence:
        return sentence
    return " ".join(m.group("clause").strip() + "." for m in PRESUPPOSED_CLAUSE.finditer(sentence))


ROLE_NOUNS = {
    "flatmate": "housemate",
    "flat-mate": "housemate",
    "roommate": "housemate",
    "room-mate": "housemate",
    "gp": "doctor",
    "landlady": "landlord",
    "boss": "manager",
}
"""Nouns of one role said by another word ("my flatmate", "my GP"), read as one noun so
that "my flatmate is Priya now" meets "my housemate is Sam"."""
SAME_ROLE = re.compile(r"\b(" + "|".join(ROLE_NOUNS) + r")(s?)\b", re.I)


def read(text: str, entities: tuple[str, ...] | list[str] = ()) -> OpenReading | None:
    """The statement's open reading, or None when it is too long to be a stated fact."""
    speaker, body = split_speaker(text.replace("’", "'"))
    if not body or len(tokens(body)) > MAX_TOKENS:
        return None
    body = SAME_ROLE.sub(lambda m: ROLE_NOUNS[m.group(1).lower()] + m.group(2), kin(body))
    people = frozenset(e.split()[0].lower() for e in set(entities) if e.strip())
    me = speaker.lower() if speaker else "user"
    ctx = Context(me, antecedent(body, people, me), people)
    sentences = split_sentences(body)
    clauses = [c for s in sentences for c in _clauses(s, ctx)]
    given, said = body, text
    if "?" in body:
        given = " ".join(_given(s) for s in sentences)
        said = f"{speaker}: {given}" if speaker else given
    if given:
        clauses += _attribute_clauses(said, entities, clauses, ctx, given)
    subjects = {c.subject for c in clauses} | set(people)
    if FIRST_PERSON & set(tokens(body)) or re.search(r"\bmy\b", body, re.I):
        subjects.add(me)
    low = [_rewritten(s).lower() for s in sentences]
    return OpenReading(
        tuple(clauses),
        tuple(sorted(subjects)),
        tuple(sorted(set(content(tokens(body))))),
        tuple(e for s in low for e in endings(s)),
        bool(low) and all("temporary" in markers(s) for s in low),
    )


def to_json(r: OpenReading) -> list[object]:
    """Plain lists, in the order `from_json` reads them."""
    return [
        [[c.subject, list(c.words), list(c.markers), c.cue, list(c.named)] for c in r.clauses],
        list(r.subjects),
        list(r.words),
        [[list(e.span), e.how, e.after, e.asserted] for e in r.endings],
        r.one_off,
    ]  # fmt: skip


def from_json(data: list[object]) -> OpenReading:
    """The reading `to_json` wrote; raises TypeError or ValueError on another shape."""
    clauses, subjects, words, ends, one_off = data
    return OpenReading(
        tuple(
            Clause(str(s), _strs(w), _strs(m), _opt(c), _strs(n))
            for s, w, m, c, n in _rows(clauses)
        ),
        _strs(subjects),
        _strs(words),
        tuple(Ending(_strs(x), str(h), str(a), bool(ok)) for x, h, a, ok in _rows(ends)),
        bool(one_off),
    )


def _rows(value: object) -> list[list[object]]:
    if not isinstance(value, list) or not all(isinstance(v, list) for v in value):
        raise TypeError("expected a list of lists")
    return value


def _strs(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError("expected a list of strings")
    return tuple(str(v) for v in value)


def _opt(value: object) -> str | None:
    return None if value is None else str(value)
