"""Phrasing families of the independent update corpus: how people state a change, or don't.

A family is one way of saying something, used for every attribute it fits; the corpus is
split dev/test by family, so the test half holds phrasings a rule tuned on dev never saw.
Update families give the later statement of a pair (and sometimes the earlier one); the
distractor families give a statement that must replace nothing beside an anchor fact it
could be mistaken for replacing. Templates are keyed by attribute name or else by kind
(verb, copula, role, have, date, status); placeholders are described in
bench/corpus_vocab.py, plus `{a}` the old value, `{b}` the new one, `{V}`/`{V0}`/`{Ved}`/
`{Ving}` the attribute's verb forms, `{prep}`, `{chg}` its change verb, `{noun}`, `{t}` the
thing a date or status belongs to.
"""

from dataclasses import dataclass, field

Templates = dict[str, tuple[str, ...]]
RETRACTED = "(none)"


@dataclass(frozen=True)
class Family:
    """`new` templates state the change; `old` (optional) the earlier state, else `state`.

    `retracts`: the new statement removes the value (no new value). `voices`: which banks
    it can be said in ("user": a user talking in dialogue turns; "notes": third person).
    `person_only`: only about someone other than the speaker. `values`: a fixed new value
    for each template (index-aligned), when the template itself names it indirectly.
    """

    name: str
    split: str
    new: Templates
    old: Templates = field(default_factory=dict)
    retracts: bool = False
    voices: tuple[str, ...] = ("user", "notes")
    person_only: bool = False
    values: tuple[str, ...] = ()
    filler: bool = False
    second_clause: bool = False


UPDATE_FAMILIES: tuple[Family, ...] = (
    # -- dev ---------------------------------------------------------------------------
    Family("value_only", "dev", {"*": ("=state0",)}),
    Family("from_to", "dev", {
        "verb": ("{S} {chg} from {a} to {b}.", "{S} {have|has} {chg} from {a} to {b}."),
        "copula": ("{S} went from being {a} to being {b}.",),
        "role": ("{My} {noun} changed from {a} to {b}.",),
        "have": ("{S} went from {a} to {b}.", "{S} upgraded from {a} to {b}."),
        "date": ("The {t} moved from {a} to {b}.", "The {t} changed from {a} to {b}."),
        "status": ("The {t} went from {a} to {b}.",),
    }),
    Family("switched_to", "dev", {
        "verb": ("{S} just {chg} to {b}.", "{S} {have|has} {chg} to {b}."),
        "copula": ("{S} {am|is} {b} now.", "As of this month {S} {am|is} {b}."),
        "role": ("{S} switched to {b} as {poss} {noun}.",),
        "have": ("{S} switched to {b}.", "{S} {have|has} {b} now."),
    }),
    Family("pushed_back", "dev", {
        "date": ("The {t} has been pushed back to {b}.", "The {t} got postponed to {b}.",
                 "They delayed the {t} until {b}."),
    }),
    Family("new_holder", "dev", {
        "role": ("{My} new {noun} is {b}.", "{S} {have|has} a new {noun}, {b}."),
    }),
    Family("no_longer", "dev", {
        "have": ("{S} no longer {have|has} a {noun}.", "{S} {do|does}n't have a {noun} anymore."),
        "role": ("{S} no longer {have|has} a {noun}.",
                 "{S} {do|does}n't have a {noun} at the moment."),
    }, retracts=True),
    Family("moved_out", "dev", {
        "housemate": ("{a} moved out, so {S} {live|lives} alone now.",),
        "partner": ("{a} and {S} broke up.",),
    }, retracts=True),
    Family("status_now", "dev", {
        "status": ("The {t} is now {b}.", "Update on the {t}: it's {b}.",
                   "As of today the {t} is {b}."),
    }),
    Family("used_to_now", "dev", {
        "verb": ("{S} used to {V0} {prep}{a}, but now {s} {V} {prep}{b}.",),
        "copula": ("{S} used to be {a}; now {s} {am|is} {b}.",),
        "have": ("{S} used to have {a}; now {s} {have|has} {b}.",),
        "role": ("{My} {noun} used to be {a}, now it's {b}.",),
    }),
    Family("filler_turn", "dev", {"*": ("=state0",)}, voices=("user",), filler=True),
    Family("caught_up_with", "dev", {
        "verb": ("Caught up with {S} yesterday. {s} {V} {prep}{b} now.",),
        "copula": ("Saw {S} at lunch, {s} {am|is} {b} now.",),
        "role": ("Talked to {S}; {poss} {noun} is {b} now.",),
        "have": ("Ran into {S}, {s} {have|has} {b} now.",),
    }, person_only=True),
    Family("change_and_aside", "dev", {"*": ("=state0",)}, second_clause=True),
    # -- test ----------------------------------------------------------------------------
    Family("paraphrase", "test", {"*": ("=state1",)}),
    Family("instead_of", "test", {
        "verb": ("{S} {V} {prep}{b} now instead of {a}.",
                 "It's {b} for {me} these days, not {a}."),
        "copula": ("{S} {am|is} {b} now rather than {a}.",),
        "role": ("{b} is {my} {noun} now instead of {a}.",),
        "have": ("{S} {have|has} {b} instead of {a} now.",),
        "date": ("The {t} is on {b} now, not {a}.",),
        "status": ("The {t} is {b} rather than {a} now.",),
    }),
    Family("stopped_started", "test", {
        "verb": ("{S} stopped {Ving} {prep}{a} and started {Ving} {prep}{b}.",
                 "{S} gave up {a} for {b}.", "No more {a} for {me}; it's {b} from now on."),
        "copula": ("{S} stopped being {a} and {am|is} {b} now.",),
        "have": ("{S} got rid of {a} and got {b}.",),
        "role": ("{S} stopped seeing {a} and went to {b} instead.",),
    }),
    Family("extended_moved", "test", {
        "date": ("The {t} was extended to {b}.", "They moved the {t} up to {b}.",
                 "The {t} now falls on {b}.", "The {t} has been rescheduled for {b}."),
    }),
    Family("took_over", "test", {
        "role": ("{b} took over as {my} {noun} after {a} left.",
                 "{a} retired, so {b} is {my} {noun} now.",
                 "With {a} gone, {b} handles everything as {my} {noun}."),
    }),
    Family("got_rid_of", "test", {
        "have": ("{S} sold {poss} {noun} last week.", "The {noun} is gone; {S} sold it."),
        "doctor": ("{S} stopped seeing {poss} {noun}.",),
        "trainer": ("{S} fired {poss} {noun}.",),
        "employer": ("{S} quit {poss} job at {a}.",),
        "sport": ("{S} quit {a}.",),
        "gym": ("{S} cancelled {poss} membership at {a}.",),
    }, retracts=True),
    Family("other_person_left", "test", {
        "housemate": ("{a} got married and moved away, so it's just {me} now.",
                      "{S} {am|is} living on {poss} own since {a} left."),
        "manager": ("{a} quit, and {b} is running {poss} team now.",),
        "partner": ("{S} and {a} split up; {S} {am|is} seeing {b} now.",),
    }),
    Family("status_event", "test", {
        "status": ("They scrapped the {t}.", "The {t} wrapped up last Friday.",
                   "The {t} got put on hold.", "The {t} slipped behind schedule.",
                   "The {t} got the green light.", "The {t} is running late.",
                   "The {t} is in real trouble.", "The {t} is back on track."),
    }, values=("cancelled", "finished", "on hold", "behind schedule", "approved",
               "delayed", "at risk", "on track")),
    Family("these_days", "test", {
        "verb": ("These days {S} {V} {prep}{b}; {a} is a thing of the past.",
                 "{S} {have|has}n't {Ved} {prep}{a} in months, it's all {b} now."),
        "copula": ("These days {S} {am|is} {b}; being {a} didn't last.",),
        "have": ("{a} is long gone; {S} {have|has} {b} these days.",),
    }),
    Family("now_that_question", "test", {
        "verb": ("Since {S} {V} {prep}{b} now, any tips?",
                 "Now that {S} {am|is} {Ving} {prep}{b}, what should I know?"),
        "copula": ("Now that {S} {am|is} {b}, what should change in the meal plan?",),
        "role": ("Now that {b} is {my} {noun}, what should I ask first?",),
        "have": ("Now that {S} {have|has} {b}, how do I set it up?",),
        "date": ("Since the {t} is on {b} now, can you help me plan around it?",),
        "status": ("Since the {t} is {b} now, how should I tell the team?",),
    }, voices=("user",)),
    Family("relative_called", "test", {
        "verb": ("{My_rel} called: {s} {V} {prep}{b} now.",
                 "{s} {V} {prep}{b} now, by the way."),
        "copula": ("{My_rel} called, {s}'s {b} now.",),
        "role": ("{My_rel} says {poss} {noun} is {b} now.",),
        "have": ("{My_rel} texted, {s} {have|has} {b} now.",),
    }, person_only=True, voices=("user",)),
    Family("two_changes", "test", {"*": ("=two",)}),
)  # fmt: skip

DISTRACTOR_FAMILIES: tuple[Family, ...] = (
    # -- dev ---------------------------------------------------------------------------
    Family("chores_with_change_words", "dev", {"*": (
        "{S} moved the couch into the spare room.",
        "{S} switched seats on the train to get away from a loud call.",
        "{S} changed the sheets and did two loads of laundry.",
        "{S} replaced the batteries in the smoke alarm.",
        "{S} swapped the winter tyres for summer ones.",
        "{S} moved {poss} desk closer to the window.",
        "{S} changed {poss} password after a phishing email.",
        "{S} switched the heating off for the summer.",
        "{S} moved the meeting notes into the shared folder.",
        "{S} replaced the cracked screen protector.",
    )}),
    Family("someone_else_same_fact", "dev", {"*": ("=other_state0", "=other_switched")}),
    Family("same_person_other_fact", "dev", {"*": ("=attr2_switched", "=attr2_state0")}),
    Family("still_the_same", "dev", {
        "verb": ("{S} still {V} {prep}{a}.",),
        "copula": ("{S} {am|is} still {a}.",),
        "role": ("{My} {noun} is still {a}.",),
        "have": ("{S} still {have|has} {a}.",),
        "date": ("The {t} is still on {a}.",),
        "status": ("The {t} is still {a}.",),
    }),
    Family("maybe_someday", "dev", {
        "verb": ("{S} might {V0} {prep}{b} next year.", "{S} {am|is} thinking about {b}."),
        "copula": ("{S} might become {b} someday.",),
        "role": ("{S} {am|is} considering {b} as {poss} next {noun}.",),
        "have": ("{S} {am|is} looking at {b} for {poss} next {noun}.",),
        "date": ("The {t} could slip to {b} if the vendor is late.",),
        "status": ("The {t} might end up {b}.",),
    }),
    Family("just_this_week", "dev", {
        "home": ("{S} {am|is} in {b} this week for a conference.",),
        "drink": ("{S} had {b} today because the café was out of everything else.",),
        "employer": ("{S} did a one-day workshop at {b}.",),
        "verb": ("Just this once, {S} tried {b}.",),
        "role": ("{b} is covering for {my} {noun} this week.",),
        "have": ("{S} borrowed {b} for the weekend.",),
        "copula": ("For a charity challenge {S} {am|is} {b} for one week.",),
    }),
    # -- test ----------------------------------------------------------------------------
    Family("errands_with_change_words", "test", {"*": (
        "{S} changed {poss} mind about dinner and got Thai.",
        "{S} traded seats with a stranger on the plane.",
        "{S} rearranged the bookshelves by colour.",
        "{S} turned the spare room into an office.",
        "{S} repainted the hallway a darker green.",
        "{S} transferred the photos to the new hard drive.",
        "{S} upgraded the router firmware.",
        "{S} returned the jacket and exchanged it for a smaller size.",
        "{S} converted the recipe to metric.",
        "{S} swapped the lightbulbs for warmer ones.",
    )}),
    Family("someone_else_changed", "test", {"*": ("=other_new_holder", "=other_caught_up")}),
    Family("also_started", "test", {
        "sport": ("{S} also started playing {b}.",),
        "language": ("{S} also started learning {b} on the side.",),
        "drink": ("{S} also {drink|drinks} {b} in the afternoons.",),
        "gym": ("{S} also joined {b} for the pool.",),
        "have": ("{S} got a second {noun} too, {b}.",),
    }),
    Family("back_then", "test", {
        "verb": ("Back in college {S} {Ved} {prep}{b}.", "Years ago {S} {Ved} {prep}{b}."),
        "copula": ("Before that, {S} was {b} for a few years.",),
        "role": ("{My} {noun} back in high school was {b}.",),
        "have": ("{S} had {b} as a student.",),
        "date": ("Last year the {t} was on {b}.",),
        "status": ("Last spring the {t} was {b}.",),
    }),
    Family("change_that_did_not_happen", "test", {
        "verb": ("{S} almost {chg} to {b} but decided against it.",
                 "{S} {am|is} not switching to {b} after all."),
        "copula": ("{S} nearly became {b}, but it didn't work out.",),
        "role": ("{S} thought about switching to {b}, but {my} {noun} is still {a}.",),
        "have": ("{S} test-drove {b} but didn't buy it.",),
        "date": ("The {t} was supposed to move to {b}, but it's still on {a}.",),
        "status": ("Rumour says the {t} is {b}, but it isn't.",),
    }),
    Family("asking_about_it", "test", {
        "verb": ("Is {b} any good? I keep hearing about it.", "Would you ever {V0} {prep}{b}?"),
        "copula": ("What's it like being {b}?",),
        "role": ("{b} seems like a great {noun}.",),
        "have": ("How reliable is {b}?",),
        "date": ("Would {b} work for the {t}, do you think?",),
        "status": ("What happens if the {t} ends up {b}?",),
    }, voices=("user",)),
)  # fmt: skip

ASIDES = (
    "and the weather has been awful",
    "and my knee is finally better",
    "and we finished that thousand-piece puzzle",
    "and the cat knocked over a plant again",
    "and the book club picked a new mystery novel",
    "and the neighbours are renovating",
)
