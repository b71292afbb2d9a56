"""A change said in other words: "I use Vim." then "I switched to VS Code."; "I am
single." then "I got married in May."; "Tom's band plays jazz." then "Tom's band went
full punk rock this year."

Consolidation supersedes what it reads as one attribute's new value; a change said in a
person's own words, naming no attribute, leaves both memories current. At query time
the question names the attribute, so no list of attributes is needed. Of two statements
that name no one else (when both name people, they share one), the newer one replaces
the older for the question when:

- the reader reads the newer as said of the older's subject, or of its owner when the
  question asks about that owner ("Sara has been running in Hokas" for "What running
  shoes does Sara wear?"; "Marco's son became an Inter fan" is not said of Marco);

- it says the subject changed, as the statement reader reads it: a change cue
  ("switched", "now", "anymore"), a verb that starts or ends something ("started
  eating"), a verb of becoming ("became", "went", "turned", "got married"), or a
  state held since a time ("has been running in Hokas since the spring"); and not said
  as possible or owed ("might try"), of the future, or negated; or it does again, to
  the thing the older is said of, what the older says was done to it: the older's verb
  with "re" before it ("We rewrote the backend in Go" after "Our backend is written in
  Python", `redoes`);
- both answer the question about as well as its best answer by meaning: each one's
  cosine to the question is at least `AS_WELL` of the highest among the candidates
  compared. The embedder knows that VS Code answers "which editor" and the fast lane of
  a pool does not, and that green tea answers "where does Maya live" far less well than
  "Maya lives in Seattle now";
- when the newer also says what it replaced ("Maya no longer drinks coffee; she drinks
  green tea instead"), it replaces that: the older must state what it negates (the same
  verb, or a word in common), not "Maya loves hiking on weekends";
- when the newer names what changed as a thing of someone's or as new ("I switched my
  phone plan to Mint Mobile", "the band got a new drummer"), the question or the older
  statement names it too: a change of another thing of the subject's replaces nothing
  the question asks for;
- a name or an amount the newer names is of a kind the older names too ("Maya lives in
  Seattle now" replaces nothing of "Maya loves hiking on weekends"; a date may say when
  the change came: "I got married in May" for "I am single"), and when both name values,
  the newer names one of a kind the older names and one the older does not ("Maya lives
  in Seattle now" replaces nothing of "Maya moved to Seattle").

Both must be single statements (`readmodel.reading.several_statements`): a turn of talk
says several things, and which of them a change replaces is not for this rule to guess.
"""

from readmodel.reading import Reading, read, several_statements
from readmodel.reading.grammar import PASSIVE_GET, POSSESSIVES, can_be_noun
from readmodel.reading.statement import Clause, ValueType
from readmodel.recall.candidate import Candidate, people, text_stats
from readmodel.recall.subject import as_speaker
from readmodel.text import STOPWORDS, stem

AS_WELL = 0.5
"""A memory's cosine to the question, as a share of the best answer's, from which it
answers the question about as well: within a factor of two."""
BECOMING = frozenset("become get go turn grow".split())
"""Verbs of becoming: what follows is the subject's new state ("went full punk")."""
_KINDS: dict[ValueType, str] = {
    "number": "amount",
    "quantity": "amount",
    "date": "when",
    "time": "when",
    "person": "name",
    "place": "name",
    "organisation": "name",
    "name": "name",
}


def says_change(clause: Clause) -> bool:
    """The clause says its subject changed (see the module)."""
    if clause.polarity == "negative" or clause.tense == "future" or clause.modal:
        return False
    if clause.change is not None or clause.aspect in ("starting", "ending"):
        return True
    if clause.predicate in BECOMING:
        return True
    if clause.passive and PASSIVE_GET & set(clause.frame.split()):
        return True
    return " since " in f" {clause.frame} "


def redoes(newer: Clause, older: Clause) -> bool:
    """The newer clause does again what the older says was done to a thing, to the same
    thing: its verb is the older's with "re" before it ("We rewrote the backend in Go"
    after "Our backend is written in Python"; "We repainted the house blue" after "The
    house is painted white"), and it names the older's subject's thing ("backend",
    "house") or says something the older says. What was done again is done anew: the
    older no longer holds."""
    if newer.polarity == "negative" or newer.tense == "future" or newer.modal:
        return False
    base = newer.predicate.removeprefix("re").removeprefix("-")
    if len(older.predicate) < 3 or base != older.predicate or base == newer.predicate:
        return False
    said = {stem(w) for w in newer.frame.split() if not w.startswith("<")}
    thing = {stem(w) for part in older.subject[-1:] for w in part.split()}
    return bool(thing & said) or bool(newer.content & older.content)


def held_by(
    older: tuple[str, ...], newer: tuple[str, ...], asked: tuple[str, ...] | None = None
) -> bool:
    """The newer statement's subject is the older's; or its owner, when the question asks
    about that owner ("Sara has been running in Hokas" for "What running shoes does Sara
    wear?", after "Sara's running shoes are Brooks"); "Marco's son became an Inter fan"
    changes nothing of Marco's, "Zoe started at Bloom Studio" nothing of her sister's.
    "We" holds the speaker: "we bought a house in York" changes where I live."""
    older, newer = as_speaker(older), as_speaker(newer)
    if not newer or older[: len(newer)] != newer:
        return False
    return older == newer or (asked is not None and as_speaker(asked) == newer)


def _same_people(a: Candidate, b: Candidate) -> bool:
    """When both name people, they share one."""
    ea, eb = people(a), people(b)
    return not (ea and eb) or bool(ea & eb)


def _retracts(retraction: Clause, stated: Clause) -> bool:
    """The negated clause is said of what the older clause states: the same verb, or a
    content word in common ("no longer drinks coffee" for "drinks black coffee")."""
    return retraction.predicate == stated.predicate or bool(retraction.content & stated.content)


def _values(reading: Reading) -> set[tuple[str, str]]:
    """(kind, normal form) of every value the statement names."""
    return {(_KINDS[v.type], v.text) for c in reading.clauses for v in c.values}


def _statement(c: Candidate) -> Reading | None:
    if several_statements(c.record.text):
        return None
    reading = read(c.record.text, c.record.entities)
    return reading if reading.readable else None


def named_things(clause: Clause) -> set[str]:
    """Stems of the nouns a clause names as a thing of someone's or as new ("my phone
    plan", "a new drummer"): what the change is of, when it says so."""
    words = clause.frame.split()
    found: set[str] = set()
    for i, word in enumerate(words):
        if word not in POSSESSIVES and word != "new":
            continue
        for after in words[i + 1 : i + 3]:
            if after.startswith("<") or not can_be_noun(after) or after in STOPWORDS:
                break
            found.add(stem(after))
    return found


def changed(
    old: Candidate,
    new: Candidate,
    best: float,
    asked: frozenset[str] = frozenset(),
    subject: tuple[str, ...] | None = None,
) -> bool:
    """`new` (the newer) says a change that replaces what `old` said, for the question
    both were found for (see the module); `best`: the highest cosine to the question
    among the candidates compared; `asked`: the stems of the question's words;
    `subject`: whom the question asks about, as the reader reads it."""
    if min(old.vector, new.vector) < AS_WELL * max(best, 1e-9):
        return False
    if not _same_people(old, new):
        return False
    before, after = _statement(old), _statement(new)
    if before is None or after is None:
        return False
    said = [c for c in after.clauses if says_change(c)]
    redone = any(redoes(c, o) for c in after.clauses for o in before.clauses)
    if not redone and not any(
        held_by(o.subject, c.subject, subject) for c in said for o in before.clauses
    ):
        return False
    retracted = [c for c in after.clauses if c.polarity == "negative"]
    if retracted and not any(_retracts(c, o) for c in retracted for o in before.clauses):
        return False
    named = set().union(*(named_things(c) for c in said))
    if named and not named & (asked | text_stats(old).stems):
        return False
    values_before, values_after = _values(before), _values(after)
    kinds_before = {kind for kind, _ in values_before}
    named_after = {kind for kind, _ in values_after} - {"when"}
    if named_after and not named_after & kinds_before:
        return False
    if not values_before or not values_after:
        return True
    kinds = kinds_before & {kind for kind, _ in values_after}
    return bool(kinds) and not values_after <= values_before
