"""Closed classes of English words the stages read by, and open-class lookups.

Closed classes (auxiliaries, pronouns, determiners, negations) are the language's own
and short. Whether a word can be a verb, and its lemma and tense, come from
`lemminflect`'s English lexicon, not from lists of ours.
"""

from collections.abc import Sequence
from functools import lru_cache

from lemminflect import getAllInflections, getAllLemmas

BE = frozenset("am is are was were be been being".split())
HAVE = frozenset("has have had having".split())
DO = frozenset("do does did".split())
MODALS = frozenset("will would can could shall should may might must".split())
FUTURE = frozenset("will shall".split())
"""Modals of the future: "will move" is said as so, of a later time."""
AUXILIARIES = BE | HAVE | DO | MODALS
PAST_AUXILIARIES = frozenset("was were had did".split())
NEGATIONS = frozenset("not never no nobody nothing none neither nor".split())
SUBJECT_PRONOUNS = {
    "i": "i",
    "me": "i",
    "we": "we",
    "you": "you",
    "he": "he",
    "she": "she",
    "they": "they",
    "it": "it",
}
POSSESSIVES = {
    "my": "i",
    "our": "we",
    "your": "you",
    "his": "he",
    "her": "she",
    "their": "they",
    "its": "it",
}
DETERMINERS = frozenset("the a an this that these those some every each".split())
DEFINITE = frozenset("the this that these those".split())
"""Determiners of a thing already known to speaker and listener ("the launch")."""
ADVERBS = frozenset(
    """also still now currently really actually just already usually always often
    sometimes finally recently nowadays only even definitely officially mostly generally
    normally typically then too again ever so very""".split()
)
INTENSIFIERS = frozenset(
    "lot lots much quite pretty totally absolutely truly really deeply".split()
)
"""Degree words: "loves hiking a lot" states what "loves hiking" states."""
PREPOSITIONS = frozenset(
    """in at on to from for with by of near into onto about around after before since
    until during over under between through across against without within per via""".split()
)
FUNCTION_WORDS = (
    AUXILIARIES
    | NEGATIONS
    | DETERMINERS
    | ADVERBS
    | INTENSIFIERS
    | PREPOSITIONS
    | frozenset(SUBJECT_PRONOUNS)
    | frozenset(POSSESSIVES)
    | frozenset("and or but as than that which who whom whose 's there here".split())
)
PASSIVE_GET = frozenset("get gets got gotten getting".split())
"""Auxiliaries of a passive besides "be": "got cancelled" is "was cancelled"."""
CONTRASTIVE = frozenset(
    """near before after without under over above below inside outside behind beside
    between against until since beyond off""".split()
)
"""Prepositions whose choice changes the fact: "near Oslo" is not "in Oslo"."""
ROLES = CONTRASTIVE | frozenset("from to into".split())
"""Prepositions that give what follows a role of its own: "from Berlin to Munich"."""
TITLES = frozenset("mr. mrs. ms. dr. prof. mr mrs ms dr prof".split())
NEGATIVE_AFFECT = frozenset("hate dislike detest loathe despise avoid refuse".split())
"""Verbs that say the subject is against the object: "I hate jazz" is the negative of
"I like jazz", so the two never read as one fact."""
STARTING = frozenset("start begin commence".split())
ENDING = frozenset("stop quit cease finish".split())
CONTINUING = frozenset("keep continue".split())
CHANGE_WORDS = frozenset(
    """now nowadays instead anymore longer switched switch changed change moved move
    relocated new started became replaced updated rescheduled postponed promoted joined
    left quit stopped""".split()
)
CHANGE_VERBS = frozenset(
    "switch change move relocate replace update upgrade downgrade convert transition swap".split()
)
"""Verbs whose past says that what the subject has or is became another ("upgraded to a
Pixel 8", "converted the garage into an office"); their other forms say a plan as often
("I'm moving to Denver", "thinking of switching")."""
TIME_WORDS = frozenset(
    """ago last yesterday today tonight tomorrow earlier later week weeks month months
    year years morning afternoon evening night weekend monday tuesday wednesday thursday
    friday saturday sunday then previously formerly once""".split()
)
"""Words that say when: a phrase of them is a time, never an aside ("Last week, ...")."""
LIGHT_VERBS = frozenset("get have take make give do".split())
"""Verbs whose object says what the subject came to have or do ("got the green light",
"took the lead"), not a thing something was done to."""
MOVED_TO = frozenset({"to", "until"})
"""Prepositions of a date a thing was moved to ("pushed to", "delayed until")."""
PARTICLES = frozenset("back forward off over up down out away".split())
"""Particles of a phrasal verb said after its object ("pushed the review back")."""
RETURNED_TO = frozenset("in to at on into home".split())
"""What follows "back" when it says where the subject returned ("back in the office full
time", "back on nights"), not the noun ("my back hurts") or a trip ("back from Rome")."""


def name_text(words: str) -> str:
    """A name without its title: "Mr. Hale" and "Hale" name one person."""
    kept = [w for w in words.lower().split() if w not in TITLES]
    return " ".join(kept) if kept else words.lower()


@lru_cache(maxsize=65536)
def lemmas(word: str) -> dict[str, tuple[str, ...]]:
    return dict(getAllLemmas(word.lower()))


def is_modifier(word: str) -> bool:
    """A word English uses as an adjective or adverb ("full", "more", "long")."""
    return bool({"ADJ", "ADV"} & set(lemmas(word)))


def can_be_verb(word: str) -> bool:
    low = word.lower()
    return low in AUXILIARIES or "VERB" in lemmas(low)


def only_verb(word: str) -> bool:
    """A word English uses as a verb only ("employed", "lives" is also a noun)."""
    found = lemmas(word)
    return set(found) <= {"VERB", "AUX"} and "VERB" in found


@lru_cache(maxsize=65536)
def verb_lemma(word: str) -> str:
    low = word.lower()
    found = lemmas(low).get("VERB") or lemmas(low).get("AUX")
    return found[0] if found else low


@lru_cache(maxsize=65536)
def verb_form(word: str) -> str:
    """The Penn tag of a verb form ("VBD" for "lived", "VBN" for "employed"), "" when
    the word is no form of a verb. A form both past and participle reads as "VBD"."""
    low = word.lower()
    lemma = verb_lemma(low)
    forms = getAllInflections(lemma, upos="VERB")
    for tag in ("VBZ", "VBG", "VBD", "VBN", "VBP", "VB"):
        if low in forms.get(tag, ()):
            return tag
    if "VERB" in lemmas(low) and low != lemma:
        return "VBD" if low.endswith("ed") else "VBG" if low.endswith("ing") else "VBZ"
    return ""


def can_be_noun(word: str) -> bool:
    return "NOUN" in lemmas(word.lower())


def change_word(low: str, following: str = "") -> bool:
    """`low` (a lowercased word, `following` the next one) says a change: a change word,
    a past form of a verb of change, or "back" before where the subject returned."""
    if low in CHANGE_WORDS:
        return True
    if low == "back":
        return following in RETURNED_TO
    return verb_lemma(low) in CHANGE_VERBS and verb_form(low) in ("VBD", "VBN")


def first_change_word(lows: Sequence[str]) -> str | None:
    """The first of `lows` (a clause's lowercased words, in order) that says a change
    (`change_word`, read with the word after it), or None."""
    for i, low in enumerate(lows):
        if change_word(low, lows[i + 1] if i + 1 < len(lows) else ""):
            return low
    return None
