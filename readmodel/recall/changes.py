"""A change said in other words: "I use Vim." then "I switched to VS Code."; "I am
single." then "I got married in May."; "Tom's band plays jazz." then "Tom's band went
full punk rock this year."

Consolidation supersedes what it reads as one attribute's new value; a change said in a
person's own words, naming no attribute, leaves both memories current. At query time
the question names the attribute, so no list of attributes is needed. Of two statements
that name no one else (when both name people, they share one), the newer one replaces
the older for the question when:

- the reader reads the newer as said of the older's subject, or of its owner ("I moved
  my accounts to a credit union" for "My bank is Chase"; "Marco's son became an Inter
  fan" is not said of Marco);

- it says the subject changed, as the statement reader reads it: a change cue
  ("switched", "now", "anymore"), a verb that starts or ends something ("started
  eating"), a verb of becoming ("became", "went", "turned", "got married"), or a
  state held since a time ("has been running in Hokas since the spring"); and not said
  as possible or owed ("might try"), of the future, or negated;
- it answers the question about as well as the older by meaning: the embedder's cosine
  of the newer to the question is at least `AS_WELL` of the older's. The embedder knows
  that VS Code answers "which editor" and the fast lane of a pool does not;
- its values are of the older's kinds when both name values (a count for a count, a
  name for a name, a date for a date).

Both must be single statements (`readmodel.reading.several_statements`): a turn of talk
says several things, and which of them a change replaces is not for this rule to guess.
"""

from readmodel.reading import Reading, read, several_statements
from readmodel.reading.grammar import PASSIVE_GET
from readmodel.reading.statement import Clause, ValueType
from readmodel.recall.candidate import Candidate

AS_WELL = 0.6
"""The newer memory's cosine to the question, as a share of the older's, from which it
answers the question too."""
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


def held_by(older: tuple[str, ...], newer: tuple[str, ...]) -> bool:
    """The newer statement's subject is the older's, or its owner: "I moved my accounts
    to a credit union" changes "my bank"; "Marco's son became an Inter fan" changes
    nothing of Marco's. "We" holds the speaker: "we bought a house in York" changes
    where I live."""
    older, newer = _speaker(older), _speaker(newer)
    return bool(newer) and older[: len(newer)] == newer


def _speaker(subject: tuple[str, ...]) -> tuple[str, ...]:
    return ("i", *subject[1:]) if subject[:1] == ("we",) else subject


def _same_people(a: Candidate, b: Candidate) -> bool:
    """When both name people, they share one."""
    ea = {e.casefold() for e in a.record.entities}
    eb = {e.casefold() for e in b.record.entities}
    return not (ea and eb) or bool(ea & eb)


def _kinds(reading: Reading) -> set[str]:
    return {_KINDS[v.type] for c in reading.clauses for v in c.values}


def _statement(c: Candidate) -> Reading | None:
    if several_statements(c.record.text):
        return None
    reading = read(c.record.text, c.record.entities)
    return reading if reading.readable else None


def changed(old: Candidate, new: Candidate) -> bool:
    """`new` (the newer, of the same subject) says a change that replaces what `old` said,
    for the question both were found for (see the module)."""
    if old.vector <= 0 or new.vector < AS_WELL * old.vector:
        return False
    if not _same_people(old, new):
        return False
    before, after = _statement(old), _statement(new)
    if before is None or after is None:
        return False
    said = [c.subject for c in after.clauses if says_change(c)]
    if not any(held_by(old_clause.subject, s) for s in said for old_clause in before.clauses):
        return False
    kinds_before, kinds_after = _kinds(before), _kinds(after)
    return not (kinds_before and kinds_after) or bool(kinds_before & kinds_after)
