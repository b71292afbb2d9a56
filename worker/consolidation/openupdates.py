"""Whether a newer statement replaces an older one, by frame and value, with no attribute list.

Four kinds of evidence, each about one subject (`openframes.py` reads the statements):

* the frame: two clauses of the same subject that say the same words but for one short
  span, the value ("my dentist is Dr. Hale" / "my new dentist is Dr. Ortiz"). With no
  change word in the newer one, the frame must be a possessive noun ("my N is _", which
  holds one value at a time), a present state whose values are names or numbers and
  whose verb does not accumulate objects, or a thing between words of the frame on both
  sides ("<s> takes the _ to work");
* a value named as ended: the newer statement says the older one's value is over
  ("from X to", "instead of X", "used to ... X", "X left", "sold my X", "no longer has a
  X", "isn't X anymore"), and the older one states X of the same subject;
* a role said by its verb and by its noun ("trains with" / "trainer", `openroles.py`),
  held by another person or ended;
* a change said by its new value alone ("<s> switched to netball"), which ends the
  subject's value of the same kind (`openkinds.py`: a sport, a language, a drink).

A known thing's date or status said anew is the statement reader's
(`readmodel.reading.things`). Clauses of plans, pasts, questions, one-offs or additions
take no part (`MARKERS`). Pure, decided on the two stored readings alone, and every
pair it relates meets by key (`openkeys.py`): one's `open_query_keys` holds a stored key
(`open_keys`) of the other, whichever arrives first, so the candidates read by key are
exact.
"""

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from contracts.memory import Relation
from readmodel.text import STOPWORDS
from worker.consolidation.openframes import Clause, OpenReading
from worker.consolidation.openkeys import MAX_VALUE, head, one_span_apart, same_tail
from worker.consolidation.openkinds import held, object_kind, switched_to
from worker.consolidation.openroles import ended_stems, held_by_people, role_of
from worker.consolidation.openvalues import LEAVING, Ending, declared
from worker.consolidation.openwords import CUES, SUBJECT, content, verb_stem
from worker.consolidation.subjects import RELATIONS


@dataclass(frozen=True)
class OpenUpdate:
    relation: Relation
    reason: str


def explain(subject: str, frame: str, old: str, new: str, cue: str | None) -> str:
    """What `sediment inspect` shows: subject, frame, old value -> new value, cue."""
    return f"{subject}: frame {frame!r}, {old!r} -> {new!r} (cue: {cue or 'none'})"


def open_update(o: OpenReading | None, n: OpenReading | None) -> OpenUpdate | None:
    """Why the statement read as `n` replaces the one read as `o` (older), or None. A
    newer value named beats a bare ending ("Keith left the company and Maria manages me
    now" says who holds the role now)."""
    if o is None or n is None or o.one_off or n.one_off:
        return None
    ended = ended_value(o, n)
    if ended is not None and ended.relation is Relation.EVOLVED_INTO:
        return ended
    return frame_change(o, n) or role_change(o, n) or kind_change(o, n) or ended


def kind_change(o: OpenReading, n: OpenReading) -> OpenUpdate | None:
    """ "<s> switched to netball": the older value of the subject's of the same kind
    (`openkinds.py`), said as the object of any frame ("<s> plays volleyball on
    weekends") or switched to before, is over; so is one held by a verb of holding it
    when a change word says the newer holds another ("<s> does judo" / "<s> is into
    fencing now")."""
    for nc in n.clauses:
        new = switched_to(nc)
        holds = new is None and nc.cue is not None and (new := held(nc)) is not None
        if new is None:
            continue
        for oc in o.clauses:
            old = (held(oc) if holds else object_kind(oc)) or switched_to(oc)
            if oc.subject != nc.subject or old is None or old[0] != new[0] or old[1] == new[1]:
                continue
            if holds and not _same_rest(oc.words, old[1], nc.words, new[1]):
                continue
            frame = f"{_masked_frame(oc.words, old[1])} ({old[0]})"
            why = explain(nc.subject, frame, " ".join(old[1]), " ".join(new[1]), nc.cue)
            return OpenUpdate(Relation.EVOLVED_INTO, why)
    return None


def _same_rest(
    old: tuple[str, ...], old_span: tuple[str, ...], new: tuple[str, ...], new_span: tuple[str, ...]
) -> bool:
    """What follows each value is the same, or said on one side only: "<s> takes the bus to
    work" and "<s> takes the train to paris now" are two journeys."""
    after_old = old[old.index(old_span[0]) + len(old_span) :]
    after_new = new[new.index(new_span[0]) + len(new_span) :]
    return not after_old or not after_new or after_old == after_new


def _contains(words: tuple[str, ...], span: tuple[str, ...]) -> bool:
    k = len(span)
    return any(words[i : i + k] == span for i in range(len(words) - k + 1))


def ended_value(o: OpenReading, n: OpenReading) -> OpenUpdate | None:
    """The newer statement names the older one's value as over, for one of its subjects
    (a value the older statement itself names as over is no value of it; "off X" ends
    only "on X": "I'm off Lexapro" / "I'm on Lexapro", not "I drink coffee"). A change
    declared by a noun ("switched dentists") ends the clause of that noun ("<s> 's dentist
    is _"), not any clause that names it ("<s> takes the train to work" is not ended by
    "changed trains at Leeds"). A value the older statement holds by a noun is that
    noun's: another noun's ending ends none of its other clauses ("<s> 's flatmate is
    Ravi", read also as "<s> lives with ravi", is not ended by "<s> 's tutor changed from
    Ravi")."""
    said_ended = {e.span for e in o.endings}
    for e in n.endings:
        if not e.asserted or e.span in said_ended:
            continue
        other_noun: set[str] = set()
        for c in sorted(o.clauses, key=lambda c: not _noun_of(c.words)):
            if c.markers or not _contains(c.words, e.span) or c.subject in other_noun:
                continue
            if c.subject not in n.subjects and not _died(e, c) and not _left(e, c, n):
                continue
            if e.how.endswith(" off") and not _contains(c.words, ("on", *e.span)):
                continue
            if (other := _other_noun(c, n, e.span)) is not None:
                if other == "noun":
                    other_noun.add(c.subject)
                continue
            if not _same_verb(e.how, e.span, c.words):
                continue
            if _other_than_a_couple(e.how, c.words):
                continue
            if declared(e.how) and not _declared_of(c, n, e):
                continue
            relation = Relation.INVALIDATED_BY if e.ends_only else Relation.EVOLVED_INTO
            new = "(ended)" if e.ends_only else e.after
            frame = _masked_frame(c.words, e.span)
            return OpenUpdate(relation, explain(c.subject, frame, " ".join(e.span), new, e.how))
    return None


def _died(e: Ending, c: Clause) -> bool:
    """ "Miso passed away": a named one's death ends what names them as held ("I have a
    cat named Miso"), whoever's statement it was."""
    return e.how in ("passed away", "died") and bool(e.span) and set(e.span) <= set(c.named)


CLOSE = RELATIONS - frozenset(
    """flatmate roommate housemate landlord landlady boss manager teacher doctor""".split()
) | frozenset("spouse fiancé fiancée".split())
"""Family and partners: one who left a job or moved out is still one's sister or wife."""


def _left(e: Ending, c: Clause, n: OpenReading) -> bool:
    """ "Oskar moved out", "Keith retired": one who left ends the role they held for
    another ("Pavel lives with Oskar", "my manager is Keith"), not every clause that
    names them ("I had lunch with Keith"), nor a partner's or a relative's, nor another's
    when the statement says whose it was; one who moved out ends only a shared home."""
    if not LEAVING.match(e.how) or not e.span or not set(e.span) <= set(c.named):
        return False
    if e.how == "moved out":
        return _shares_home(c, e.span) and not _said_of_another(c, n, None)
    role = role_of(c)
    if role is not None:
        close = role.noun and set(c.words[2 : -len(role.holder) - 1]) & CLOSE
        held = set(e.span) <= set(role.holder)
        return not close and held and not _said_of_another(c, n, role.stems)
    return _shares_home(c, e.span) and not _said_of_another(c, n, None)


def _said_of_another(c: Clause, n: OpenReading, stems: frozenset[str] | None) -> bool:
    """The statement says whose role the leaving changed, and it is another subject's
    ("Keith quit, so Ben reports to Maria now" is Ben's, not Ana's): a role of the same
    stems, or a home, of another subject."""
    for x in n.clauses:
        if x.subject == c.subject:
            continue
        role = role_of(x)
        if stems is not None and role is not None and role.stems & stems:
            return True
        if stems is None and x.words[1:2] in (("lives",), ("live",)):
            return True
    return False


def _shares_home(c: Clause, span: tuple[str, ...]) -> bool:
    """ "<s> lives with _" or "<s> 's housemate is _" holding the span: whom moving out
    ends ("Grace moved out" is no end of "<s> trains with grace")."""
    w = c.words
    if w[1:3] in (("lives", "with"), ("live", "with")):
        return set(span) <= set(w[3:])
    return w[1:4] == ("'s", "housemate", "is") and set(span) <= set(w[4:])


def _declared_of(c: Clause, n: OpenReading, e: Ending) -> bool:
    """ "<s> switched dentists" ends "<s> 's dentist is _": the older clause is of that
    noun, and a clause of the same subject says the change of its own (not another
    person of the statement, "Ben switched dentists", nor a relative or a holder of the
    subject's, "my sister switched dentists", "my dentist changed offices")."""
    plural = e.how.split()[-1]
    said = any(
        x.subject == c.subject and x.words[1:2] != ("'s",) and plural in x.words for x in n.clauses
    )
    return said and _noun_of(c.words) == e.span


def _noun_of(words: tuple[str, ...]) -> tuple[str, ...]:
    """The noun of "<s> 's N ...", up to its verb (empty for another clause)."""
    if words[:2] != (SUBJECT, "'s"):
        return ()
    out: list[str] = []
    for w in words[2:]:
        if w in STOPWORDS or CUES.fullmatch(w) or w.endswith("ed"):
            break
        out.append(w)
    return tuple(out)


def _same_verb(how: str, span: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """ "used to run on tuesdays": when the value named as over is a time, the older
    clause says that verb ("<s> run on tuesdays"), not another one at the same time
    ("<s> swim on tuesdays"); a place or a thing may be said with another verb ("works
    out at" / "used to train at")."""
    said = how.split()
    if said[0] not in ("used", "stopped") or said[-1] in ("be", "have", "being", "seeing"):
        return True
    if not TIMES.search(" ".join(span)):
        return True
    verb = verb_stem(said[-1])
    return said[-1] in ("used", "stopped") or any(verb_stem(w) == verb for w in words)


TIMES = re.compile(
    r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun|week)days?|weekends?|mornings?|afternoons?|"
    r"evenings?|nights?|lunch|breakfast|dinner)\b"
)


def _other_noun(c: Clause, n: OpenReading, span: tuple[str, ...]) -> str | None:
    """Why the older clause is not what the newer statement ends, or None: "noun" when the
    newer says the span with another noun of the subject ("<s> 's partner is Hugo" is not
    what "<s> 's trainer changed from Hugo to ..." ends); "relation" when a relative's
    value is the relative's ("<s> 's brother works at Acme" is not ended by "I quit Acme",
    nor "I'm a fan" by "my brother isn't a fan anymore"), unless what is ended is a person
    holding a relation, or the relation itself ("Omar no longer has a partner")."""
    noun = _noun_of(c.words)
    said = {
        _noun_of(x.words) for x in n.clauses if x.subject == c.subject and _contains(x.words, span)
    } - {()}
    old_rel = set(noun) & RELATIONS
    new_rel = {w for x in said for w in x} & RELATIONS
    if noun and said and noun not in said and not old_rel & new_rel:
        return "noun"
    ended_holder = set(span) & (set(n.subjects) | old_rel)
    return "relation" if old_rel != new_rel and not ended_holder else None


def _other_than_a_couple(how: str, words: tuple[str, ...]) -> bool:
    """ "Hugo and Rosa broke up" ends what the two were to each other as a couple: a
    clause of a relation ("<s> 's partner is Hugo") or of none ("<s> is with Hugo"), not
    one of a noun of another kind ("<s> 's personal trainer is Hugo")."""
    noun = _noun_of(words)
    return bool(COUPLE.match(how) and noun) and not set(noun) & RELATIONS


COUPLE = re.compile(r"(?:broke|split) up\b|(?:split|separated) from\b|separated\b|divorced\b")


def _masked_frame(words: tuple[str, ...], span: tuple[str, ...]) -> str:
    k = len(span)
    at = next(i for i in range(len(words) - k + 1) if words[i : i + k] == span)
    return " ".join((*words[:at], "_", *words[at + k :]))


def frame_change(o: OpenReading, n: OpenReading) -> OpenUpdate | None:
    for nc in n.clauses:
        for oc in o.clauses:
            found = _frame(oc, nc)
            if found is None and (_progressive(oc) or _progressive(nc)):
                found = _frame(_simple(oc), _simple(nc))
            if found is not None:
                return found
    return None


def _aux(w: tuple[str, ...]) -> int:
    """How many words of "be" (or "have been") stand between the subject and an -ing
    verb: "<s> 'm living in _" 1, "<s> 've been living in _" 2, otherwise 0."""
    if len(w) > 2 and w[1] in BE and _ing(w[2]):
        return 1
    if len(w) > 3 and w[1] in HAVE and w[2] == "been" and _ing(w[3]):
        return 2
    return 0


def _ing(word: str) -> bool:
    return word.endswith("ing") and word not in STOPWORDS


def _progressive(c: Clause) -> bool:
    """ "<s> 'm living in _", "<s> 've been living in _": a present state said with "be"
    (or "have been") and the verb's -ing form."""
    return _aux(c.words) > 0


def _simple(c: Clause) -> Clause:
    """The clause with its verb as a stem and no "be" before it, so that "<s> 'm living
    in _", "<s> 've been living in _" and "<s> live in _" say one frame."""
    w = c.words
    if _progressive(c):
        w = (w[0], *w[1 + _aux(w) :])
    if len(w) > 1 and w[0] == SUBJECT and w[1] not in STOPWORDS and w[1][0] != "'":
        w = (w[0], verb_stem(w[1]), *w[2:])
    return Clause(c.subject, w, c.markers, c.cue, c.named)


BE = frozenset({"is", "are", "am", "'m", "'re", "'s"})
HAVE = frozenset({"have", "has", "'ve", "'s"})


def _frame(o: Clause, n: Clause) -> OpenUpdate | None:
    """One subject, the same words but one short span each side, neither a plan nor a past."""
    if o.subject != n.subject or o.markers or n.markers or not one_span_apart(o.words, n.words):
        return None
    found = head(o)
    if found is None or (found != head(n) and not same_tail(o, n)):
        return None
    span = _changed_span(o, n)
    if span is None:
        return None
    i1, i2, j1, j2 = span
    old, new = o.words[i1:i2], n.words[j1:j2]
    frame = (*o.words[:i1], "_", *o.words[i2:])
    alone = _alone(old) != _alone(new) and "with" in (old[:1] + new[:1])
    if alone and len(old + new) <= 6 and not _past(frame) and not ACCUMULATING & set(frame):
        said = [" ".join(v) if not _alone(v) else "alone" for v in (old, new)]
        why = explain(n.subject, " ".join(frame), said[0], said[1], n.cue)
        return OpenUpdate(Relation.EVOLVED_INTO, why)
    # Every test from here to the end but the last returns None, and none raises: the
    # frame's subject first, as most pairs fail there (a value right after the subject,
    # "<s> <surname> replaced a bulb" of two people of one first name).
    if SUBJECT not in frame[: frame.index("_") - 1] or _noun_changed(frame):
        return None
    if max(len(old), len(new)) > MAX_VALUE or SUBJECT in old + new:
        return None
    if not content(list(old)) or not content(list(new)):
        return None
    if not _same_kind(old, new, _names(old, o) and _names(new, n)):
        return None
    if _names(old, o) != _names(new, n) or _doing(old, new):
        return None
    if _past(_unnamed(old, o)) or _past(_unnamed(new, n)):
        return None
    if not _possessive_noun(frame) and not _predicate(frame):
        return None
    named = frozenset(o.named) | frozenset(n.named)
    if n.cue is None and not _possessive_noun(frame) and not _stative(frame, old, new, named):
        return None
    named_values = _names(old, o) and _names(new, n)
    if (
        n.cue is None
        and not _possessive_noun(frame)
        and not named_values
        and not _framed(frame, old)
    ):
        return None
    why = explain(n.subject, " ".join(frame), " ".join(old), " ".join(new), n.cue)
    return OpenUpdate(Relation.EVOLVED_INTO, why)


ALONE = frozenset(
    {("alone",), ("on", SUBJECT, "'s", "own"), ("on", SUBJECT, "own"), ("by", SUBJECT)}
)
"""A clause's value said as nobody with the subject: "<s> lives alone", "on <s> 's own",
"by <s>" (the reflexive: "by myself")."""


def _alone(value: tuple[str, ...]) -> bool:
    return value in ALONE


def _changed_span(o: Clause, n: Clause) -> tuple[int, int, int, int] | None:
    """Where the two clauses differ, when that is one span on each side: one replaced
    run of words, or two joined by one word inside a name on both sides ("Gold's on Main"
    / "Crunch on 5th")."""
    if o.words == n.words:
        return None
    simple = _one_replaced_run(o.words, n.words)
    if simple is not None:
        return simple
    ops = SequenceMatcher(None, o.words, n.words, False).get_opcodes()
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) == 1 and changed[0][0] == "replace":
        return changed[0][1:]
    if len(changed) != 2 or changed[1][1] - changed[0][2] != 1:
        return None
    i1, i2, j1, j2 = changed[0][1], changed[1][2], changed[0][3], changed[1][4]
    if i1 == i2 or j1 == j2 or not (_names(o.words[i1:i2], o) and _names(n.words[j1:j2], n)):
        return None
    inner_o, inner_n = o.words[changed[0][2]], n.words[changed[0][4]]
    named = _names(o.words[i1 : changed[0][2]], o) and _names(n.words[j1 : changed[0][4]], n)
    return (i1, i2, j1, j2) if inner_o == inner_n and inner_o in STOPWORDS and named else None


def _one_replaced_run(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[int, int, int, int] | None:
    """The span `SequenceMatcher(None, a, b, False)` replaces, found without aligning, when
    the two differ in one run whose words are found nowhere on the other side ("<s> lives in
    porto" / "<s> lives in lyon"): then the words they share at the start and at the end
    are the only matching blocks (each is the longest block of what is left, and none can
    reach into the run), so the alignment is those two blocks around one replacement.
    None for any other pair, which the alignment itself reads."""
    shorter = min(len(a), len(b))
    start = 0
    while start < shorter and a[start] == b[start]:
        start += 1
    end = 0
    while end < shorter - start and a[-1 - end] == b[-1 - end]:
        end += 1
    run_a, run_b = a[start : len(a) - end], b[start : len(b) - end]
    if not run_a or not run_b or set(run_a) & set(b) or set(run_b) & set(a):
        return None
    return start, len(a) - end, start, len(b) - end


def _noun_changed(frame: tuple[str, ...]) -> bool:
    """ "<s> 's _ is X": what differs is the noun, not its value (the partner and the
    trainer may be one person)."""
    cut = frame.index("_")
    return frame[cut - 1 : cut] == ("'s",) and frame[cut + 1 : cut + 2] in (("is",), ("are",))


def _framed(frame: tuple[str, ...], old: tuple[str, ...]) -> bool:
    """The value is a thing (led by a determiner) between words of the frame that say
    something on both sides ("<s> takes the _ to work"): a slot of the subject, not a
    word said of how it feels ("<s> feel _ about the exam")."""
    cut = frame.index("_")
    before = [w for w in content(list(frame[:cut])) if w not in MANNER]
    after = [w for w in content(list(frame[cut + 1 :])) if w not in MANNER]
    led = frame[cut - 1] in DETERMINERS or old[0] in DETERMINERS
    return bool(before and after) and led


DETERMINERS = frozenset({"a", "an", "the", "'s", "their", "our", "this", "that"})


def _doing(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """A value that is a verb with its words ("pushing forward" / "looking ahead") is
    something being done, not a value held ("hiking" / "climbing" are)."""
    return any(len(v) > 1 and v[0].endswith("ing") and v[0] not in STOPWORDS for v in (old, new))


def _unnamed(span: tuple[str, ...], c: Clause) -> tuple[str, ...]:
    """The span's words that are not written as names (a "Kia Ceed" is no past form)."""
    return tuple(w for w in span if w not in c.named)


def _names(span: tuple[str, ...], c: Clause) -> bool:
    """The span holds a name or a number: with no change word, only such values (a city,
    a company, a person, a date) are read as replacing one another."""
    return bool(set(span) & set(c.named))


def _predicate(frame: tuple[str, ...]) -> bool:
    """The frame says something of its own around the value: a content word that is not
    a change word ("<s> switched to _" says only that something changed), before it or
    after it ("<s> is on the _ shift"), and no verb in a past form before it ("<s>
    replaced the old _" is something done, not a state)."""
    cut = frame.index("_")
    before, after = frame[:cut], frame[cut + 1 :]
    said = [w for w in content(list(before)) if not CUES.fullmatch(w) and w not in MANNER]
    said += [w for w in content(list(after)) if w not in MANNER and SUBJECT not in after]
    return any(not w.endswith("ly") for w in said) and not _past(before)


MANNER = frozenset(
    """really so very pretty super totally quite always never also even sure too kinda
    definitely""".split()
)
"""Words of degree or manner, which are no predicate of their own ("I really _")."""


def _past(words: tuple[str, ...] | list[str]) -> bool:
    """A past form not after a copula ("is employed by" is a state)."""
    return any(
        (w.endswith("ed") or w in IRREGULAR_PAST) and (i == 0 or words[i - 1] not in COPULAS)
        for i, w in enumerate(words)
        if w not in STOPWORDS
    )


COPULAS = frozenset({"is", "are", "am", "'s", "'m", "'re", "be", "been"})


def _same_kind(old: tuple[str, ...], new: tuple[str, ...], names: bool = False) -> bool:
    """Two values of one kind: both with an article or neither ("a Honda" is not "red"),
    unless both are names ("the YMCA" and "Crunch"), and led by the same preposition if
    by any ("in Lisbon" is not "alone", nor "with Kim"). With `_names` equal on both
    sides ("Tom" is not "busy") and no verb form in either ("Tom" is not "based in
    Oslo")."""
    if (old[0] in ARTICLES) != (new[0] in ARTICLES) and not names:
        return False
    a = [w for w in old if w not in ARTICLES]
    b = [w for w in new if w not in ARTICLES]
    lead_a, lead_b = a[0] in STOPWORDS, b[0] in STOPWORDS
    return not (lead_a or lead_b) or a[0] == b[0]


ARTICLES = frozenset({"a", "an", "the"})


def _stative(
    frame: tuple[str, ...], old: tuple[str, ...], new: tuple[str, ...], named: frozenset[str]
) -> bool:
    """With no change word, a short value of a present state (longer only when all of it
    is a name: "Gold's on Main"): no word of the frame is a past form, and its verb is not
    one whose objects accumulate ("I love X")."""
    if max(len(old), len(new)) > 3 and not all(
        w in STOPWORDS or w[0] == "'" for w in old + new if w not in named
    ):
        return False
    said = [w for w in frame if w != "_"]
    return not _past(said) and not ACCUMULATING & set(said)


IRREGULAR_PAST = frozenset(
    """went got made took saw met ran came gave bought brought thought told said felt left
    found kept held sat stood wrote read heard lost won began drove flew ate drank""".split()
)
ACCUMULATING = frozenset(
    """like likes love loves enjoy enjoys hate hates miss misses visit visits know knows
    meet meets see sees watch watches read reads want wants need needs have has own owns
    play plays speak speaks collect collects follow follows""".split()
)
"""Verbs whose objects add up rather than replace one another; with no change word,
"I love X" and "I love Y" are two things loved, "Bob plays chess" and "Bob plays golf"
two games played."""


def _possessive_noun(frame: tuple[str, ...]) -> bool:
    """ "<s> 's N is _": a noun of the subject that holds one value at a time (a title or
    article may stand between: "is dr _")."""
    cut = frame.index("_")
    before = frame[:cut]
    copulas = [i for i, w in enumerate(before) if w in ("is", "are")]
    if not copulas or cut - copulas[-1] > 2 or "'s" not in before:
        return False
    before = before[: copulas[-1] + 1]
    noun = before[before.index("'s") + 1 : -1]
    return (
        before[before.index("'s") - 1] == SUBJECT
        and 0 < len(noun) <= 3
        and len(content(list(noun))) == len(noun)
    )


def role_change(o: OpenReading, n: OpenReading) -> OpenUpdate | None:
    """One role of the subject said by its noun and by its verb (`openroles.py`), held by
    another person now, or ended ("no longer has a personal trainer"). A verb's holders
    may be several ("trains with"), so a newer verb needs a change word; a newer noun
    ("<s> 's trainer is _") holds one."""
    for oc in o.clauses:
        old = role_of(oc)
        if old is None or not held_by_people(old, o):
            continue
        for nc in n.clauses:
            new = role_of(nc)
            if new is None or nc.subject != oc.subject or not new.stems & old.stems:
                continue
            if new.noun == old.noun or not held_by_people(new, n) or (not new.noun and not nc.cue):
                continue
            if set(content(list(old.holder))) & set(content(list(new.holder))):
                continue
            why = explain(oc.subject, old.frame, " ".join(old.holder), " ".join(new.holder), nc.cue)
            return OpenUpdate(Relation.EVOLVED_INTO, why)
        for e in n.endings:
            if not (e.asserted and e.ends_only and e.span) or oc.subject not in n.subjects:
                continue
            if not old.noun and ended_stems(e.span) & old.stems:
                why = explain(oc.subject, old.frame, " ".join(old.holder), "(ended)", e.how)
                return OpenUpdate(Relation.INVALIDATED_BY, why)
    return None
