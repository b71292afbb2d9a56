"""A known thing's date or status said anew: decided on two readings, with no list of
things, dates or statuses.

A thing is a clause's subject named by a common noun after "the" or a possessive ("the
quarterly report", "the status of the CRM rollout", "my visa interview"); a person's
name or a pronoun is none. Of one thing:

- **its date**: a clause that gives it one date (a date said to be left, "from May 3",
  is none of its dates) is replaced by a newer one that gives it another, said as what
  it is on or set for ("is on", "is scheduled for") or as one it was moved to ("moved
  to", "got pushed to", "they delayed it until"); a date a state holds on or a happening
  was on is none ("the office is closed on December 24"). A thing's date said after its
  own noun ("the gala date moved") is the thing's ("the gala");
- **its status**: "the T is X" (a copula with no value, a state it was put in: "is
  approved", "was signed", "got called off", or one it came to: "has stalled", "fell
  through") is replaced by a newer status that says
  something else of it, when the thing is named in more than one word, or the newer
  says a change or what was done to it. A status is never read of a thing owned by
  someone ("my manager is busy" says nothing of who the manager is), nor of a clause
  that says when it happened ("was discussed last year").

Neither side may be a possibility or a negation, nor a plan but for a thing's date said
anew ("the move will now take place on May 10"). Both meet by key (`thing_keys`).
"""

import re

from readmodel.reading import grammar as g
from readmodel.reading.statement import Clause, Reading, Value
from readmodel.text import stem

LIGHT = frozenset({"date", "status", "due"})
"""Nouns that name what is said of their owner: "the gala date", "the status of the
launch", "the payment due date" are the gala's, the launch's and the payment's."""
PRESENT_DAYS = frozenset({"today", "now", "tonight"})
"""Dates that say "as of now" and so no date of the thing ("approved as of today")."""
LEFT = frozenset({"from"})
"""The role of a date the thing left ("moved from May 3 to May 10")."""
MAX_STATUS_TERMS = 4


def thing_of(clause: Clause) -> str | None:
    """The thing the clause is said of, as its words ("quarterly report", "i lease": the
    deadline for the grant is the grant deadline), or None when its subject is no thing."""
    if not clause.named:
        return None
    chain = list(clause.subject)
    while len(chain) > 1 and chain[-1] in LIGHT:
        chain.pop()
    words = " ".join(chain).split()
    while len(words) > 1 and words[-1] in LIGHT:
        words.pop()
    return " ".join(words)


def _said_as_so(clause: Clause) -> bool:
    """Said as so (or, of a date, as what will be so: "will now take place on May 10")."""
    return (
        clause.polarity == "positive"
        and not clause.modal
        and clause.aspect not in {"habitual", "starting", "ending"}
    )


def dates_of(clause: Clause) -> tuple[str, ...]:
    """The thing's dates: those the clause gives it, but one it left or the present."""
    return tuple(
        v.text
        for v in clause.values
        if v.type == "date" and v.role not in LEFT and v.text not in PRESENT_DAYS
    )


_SET_FOR = re.compile(r" (?:for|through|to|until) (?:the )?<date>")
"""A date the frame sets the thing for, or moves it to, "the" before a day said alone
("got bumped to the 10th")."""


def _its_date(clause: Clause) -> bool:
    """The clause gives the thing its date: as what the thing is on ("is on May 3", "is
    due May 3"), one it is set for or lasts through ("is scheduled for May 3", "was
    extended through Sunday"), one it does its one thing on ("ends on June 30", "expires
    on May 3": a verb with nothing else said), one it was moved to ("moved to", "got
    pushed to", "delayed until") or one said with a change ("now falls on May 3"). A date
    a state holds on ("the office is closed on December 24") or a happening was on ("was
    signed on May 3") is no date of the thing: another such date is another fact."""
    if clause.predicate == "be" or clause.change is not None:
        return True
    if _SET_FOR.search(clause.frame):
        return True
    if not clause.passive and not clause.content and clause.tense == "present":
        return True
    return any(v.type == "date" and v.role in g.MOVED_TO for v in clause.values)


def _date_change(old: Clause, new: Clause) -> str | None:
    was, now = dates_of(old), dates_of(new)
    if len(was) != 1 or len(now) != 1 or was == now:
        return None
    if "future" in (old.tense, new.tense) and new.change is None:
        return None
    if not _its_date(old) or not _its_date(new):
        return None
    return f"date {was[0]!r} -> {now[0]!r}"


def _status(clause: Clause) -> frozenset[str] | None:
    """What a clause says the thing is ("on hold", "approved"; not who put it there) or
    came to ("has stalled", "fell through"), or None when it says no status: it names a
    value, says when ("was discussed last year", "back then"), says what the thing was
    ("was on hold") or what it does as it always does ("needs more compost")."""
    if clause.named != "definite" or any(not _present_day(v) for v in clause.values):
        return None
    if clause.tense == "future":
        return None
    if clause.predicate == "be" and clause.tense == "past":
        return None
    doing = clause.predicate != "be" and not clause.passive and clause.aspect == "simple"
    if doing and clause.tense == "present":
        return None
    if set(clause.frame.split()) & g.TIME_WORDS:
        return None
    said = {t for t in clause.content if not t.startswith("by:")}
    said |= {stem(clause.predicate)} if clause.predicate != "be" else set()
    if not said or len(said) > MAX_STATUS_TERMS:
        return None
    return frozenset(said)


def _present_day(value: Value) -> bool:
    return value.type == "date" and value.text in PRESENT_DAYS


def _status_change(thing: str, old: Clause, new: Clause) -> str | None:
    was, now = _status(old), _status(new)
    if was is None or now is None or was <= now:
        return None
    if old.tense == "past" or (" " not in thing and new.change is None and not new.passive):
        return None
    return f"status {' '.join(sorted(was))!r} -> {' '.join(sorted(now))!r}"


def thing_update(older: Reading, newer: Reading) -> str | None:
    """Why `newer` gives a thing of `older` another date or status, in words, or None."""
    if not older.readable or not newer.readable:
        return None
    for new in newer.clauses:
        thing = thing_of(new)
        if thing is None or not _said_as_so(new):
            continue
        for old in older.clauses:
            if thing_of(old) != thing or not _said_as_so(old):
                continue
            found = _date_change(old, new) or _status_change(thing, old, new)
            if found is not None:
                cue = f" ({new.change})" if new.change else ""
                return f"the {thing}: {found}{cue}"
    return None


def thing_keys(reading: Reading, query: bool = False) -> tuple[str, ...]:
    """The keys statements of one thing's date or status meet by, stored (or, with
    `query`, read by): `T|date` for a date, stored and read alike; `T|status` stored by a
    status that may be replaced (one not said in a past) and read by every status, `T|said`
    stored by every status and read by one that may be replaced. So a past act ("Ana
    fixed the car") meets the statuses it may replace, never the other past acts of that
    thing, which grow with the bank; each pair `thing_update` relates meets, whichever
    arrives first."""
    if not reading.readable:
        return ()
    keys = set()
    for clause in reading.clauses:
        thing = thing_of(clause)
        if thing is None or not _said_as_so(clause):
            continue
        if len(dates_of(clause)) == 1 and _its_date(clause):
            keys.add(f"~thing:{thing}|date")
        if _status(clause) is None:
            continue
        replaceable = clause.tense != "past"
        if replaceable:
            keys.add(f"~thing:{thing}|said" if query else f"~thing:{thing}|status")
        keys.add(f"~thing:{thing}|status" if query else f"~thing:{thing}|said")
    return tuple(sorted(keys))
