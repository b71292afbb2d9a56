"""Who a statement is about: the speaker, a named person, someone's relative, a thing.

Subjects are plain lowercase keys: a first name ("ana"), the speaker or "user" for "I",
"ana>son" for an unnamed relative, a thing's words ("hallway thermostat"). Reading is
local: the noun phrase right before a verb is its subject ("Ana helped her friend Eva move
to Lyon": Eva moves), unless the verb is coordinated ("Jack sold the Civic and now
drives a Tesla": Jack drives).
"""

import re
from dataclasses import dataclass

FIRST_PERSON = frozenset({"i", "me", "we", "us"})
FIRST_POSSESSIVE = frozenset({"my", "our"})
THIRD_PRONOUNS = frozenset({"he", "she", "they", "him", "her", "them"})
THIRD_POSSESSIVE = frozenset({"his", "her", "their"})
RELATIONS = frozenset(
    """son daughter kid kids child children sister brother mum mom mother dad father parents
    wife husband partner girlfriend boyfriend fiance fiancee cousin niece nephew aunt uncle
    grandma grandpa grandmother grandfather friend colleague coworker co-worker neighbour
    neighbor flatmate roommate housemate landlord landlady boss manager teacher doctor
    sibling stepson stepdaughter baby""".split()
)
SKIP = frozenset(
    """is am are was were be been being has have had 's 'm 're 've 'd will would shall can
    could do does did still now also just finally recently already actually really happily
    currently mostly always usually officially newly then only even both all again strictly
    fully soon since lately nowadays today yesterday apparently luckily sadly definitely
    probably officially meanwhile gladly basically truly certainly""".split()
)
NEGATIONS = frozenset(
    """not n't never no longer doesn't don't didn't isn't aren't wasn't won't can't cannot
    hardly barely""".split()
)
NON_FACTUAL = frozenset(
    """to might may could would should want wants wanted hope hopes hoping thinking
    considering planning plan plans going if maybe perhaps wish wishes about almost nearly
    considered thought meant meaning supposed tempted debating tried trying
    """.split()
)
SWITCHED = frozenset("switched swapped changed moved gone went".split())
BEGUN = frozenset("started start starts starting began begun begin begins".split())
"""Verbs before a gerund whose subject is the gerund's: "I switched to learning Italian",
"I've started cycling to work" say what the speaker does, and what comes before them
says whether it is so ("I nearly started cycling", "I never switched to learning
Italian"; a plain "to" is no fact: "I want to learn Italian")."""
CAPITAL_STOP = frozenset(
    """the a an this that these those my our his her their your it its there here after
    before since when while if but and so oh guess quick by new use call write home lately
    nowadays today yesterday tomorrow starting correction reminder update someone everyone
    nobody we i he she they also then now still just every each in on at for from to with
    finally actually apparently sadly luckily anyway well yes no ok okay hey hi thanks wow
    dr mr ms mrs please happy congrats congratulations wait sure right great good nice
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()
)
CONTRACTED = re.compile(r"^(?P<head>i|we|you|he|she|they)['’](?P<tail>m|re|ve|s|d|ll)$")
"""A pronoun with its verb joined ("I'm", "she's", "we've"): the pronoun is the subject;
"I'd", "I'll" say a wish or a plan, no fact."""
TOKEN = re.compile(r"[\w'’-]+|[,;:]")
_POSSESSIVE = re.compile(r"^(.*?)(?:'s|’s|')$")


@dataclass(frozen=True)
class Context:
    """What a statement's words are resolved against: "I" is `me` (the speaker, or "user"),
    "he"/"she" is `antecedent` (the first person named in the text, or the only entity)."""

    me: str
    antecedent: str | None
    entities: frozenset[str]


def name_key(word: str) -> str:
    found = _POSSESSIVE.match(word)
    return (found.group(1) if found else word).lower()


def is_name(word: str) -> bool:
    """A capitalised word that is no sentence word ("Dana"), or an identifier: letters
    and digits, starting with a letter, as user and host names are written ("user42",
    "db01")."""
    base = name_key(word)
    if not word or base in CAPITAL_STOP:
        return False
    if base.isalnum() and base[0].isalpha() and any(c.isdigit() for c in base):
        return True
    return word[0].isupper() and base.isalpha()


def antecedent(body: str, entities: frozenset[str], speaker: str | None) -> str | None:
    """The person "he" or "she" most likely refers to: the first of the producer's people
    named in the text, else its first name ("Caught up with Bram. He ..." is Bram, not a
    person called Caught) or relative of the speaker's ("my mum called, she's moved"),
    first when the text opens with them."""
    words = TOKEN.findall(body)
    if _relative(words, 0, speaker):
        return f"{speaker}>{words[1].lower()}"
    for word in words:
        key = name_key(word)
        if key in entities and key != speaker:
            return key
    for i, word in enumerate(words):
        key = name_key(word)
        if word[0].isupper() and key.isalpha() and key not in CAPITAL_STOP and key != speaker:
            return key
        if _relative(words, i, speaker):
            return f"{speaker}>{words[i + 1].lower()}"
    people = sorted(e.split()[0].lower() for e in entities if e)
    return people[0] if len(people) == 1 else None


KIN = re.compile(
    r"(?<![\w'])(?-i:Mum|Mom|Mam|Dad|Grandma|Grandpa|Gran|Granny|Nana|Nan)\b(?! [A-Z])"
)
"""A parent or grandparent called by the kin word, as a name ("Mum says ...", "Dad's new
doctor"): the speaker's own ("my mum"), as "my mum" says it, not a person of that name
(but "Nan Goldin" is one)."""


def kin(body: str) -> str:
    """The body with a kin word used as a name said as the speaker's ("my mum")."""
    return KIN.sub(lambda m: "my " + m.group(0).lower(), body)


def _relative(words: list[str], i: int, speaker: str | None) -> bool:
    """ "my mum", "our landlord" at `i`: a relative of the speaker's, not named ("my
    sister Ana" is Ana)."""
    if not speaker or i + 1 >= len(words) or words[i].lower() not in FIRST_POSSESSIVE:
        return False
    named = i + 2 < len(words) and is_name(words[i + 2])
    return words[i + 1].lower() in RELATIONS and not named


def owner_key(owner: str, ctx: Context) -> str | None:
    """The key of a possessor: "my" -> me, "her" -> the antecedent, "Ana's" -> ana."""
    low = owner.lower().strip()
    if low in FIRST_POSSESSIVE:
        return ctx.me
    if low in THIRD_POSSESSIVE:
        return ctx.antecedent
    key = name_key(owner.strip())
    return key if key and key not in CAPITAL_STOP else None


def local_subject(sentence: str, start: int, ctx: Context) -> tuple[str | None, bool]:
    """The subject of the verb at `start`, and whether it is negated there ("no longer
    lives in"). None when the verb is not asserted (infinitive, modal, question) or its
    subject is unknown ("you")."""
    toks = TOKEN.findall(sentence[:start])
    negated = False
    i = len(toks) - 1
    while True:
        while i >= 0 and (toks[i].lower() in SKIP or toks[i].lower() in NEGATIONS):
            if toks[i].lower() in NEGATIONS or toks[i].lower() == "longer":
                negated = True
            i -= 1
        if i >= 0 and toks[i].lower() == "longer" and i > 0 and toks[i - 1].lower() == "no":
            negated, i = True, i - 2
        if i > 1 and toks[i].lower() == "to" and toks[i - 1].lower() in SWITCHED:
            i -= 2
        elif i > 0 and toks[i].lower() in BEGUN:
            i -= 1
        else:
            break
    if i < 0:
        return clause_subject(sentence, ctx), negated
    word = toks[i]
    low = word.lower()
    if _complement(sentence[start:], word):
        return None, negated
    contracted = CONTRACTED.match(low)
    if contracted:
        if contracted.group("tail") in ("d", "ll"):
            return None, negated
        word = low = contracted.group("head")
        toks = [*toks[:i], word]
    if low == "to" and i > 0 and toks[i - 1].lower() == "used":
        return _subject_at(toks, i - 2, sentence, ctx) if i > 1 else None, True
    if low in NON_FACTUAL or (_verb_like(word) and _unasserted(toks[:i])):
        return None, negated
    return _subject_at(toks, i, sentence, ctx), negated


def _verb_like(word: str) -> bool:
    """A plain lowercase word that is no subject: the verb before the frame's ("go")."""
    low = word.lower()
    if not low.isalpha() or low != word or low in FIRST_PERSON or low in THIRD_PRONOUNS:
        return False
    if low in ("and", "but", "so", "or", "then"):
        return False
    return low not in RELATIONS and low not in FIRST_POSSESSIVE and low not in THIRD_POSSESSIVE


def _unasserted(toks: list[str]) -> bool:
    """A word of the clause before the verb says it is not so ("Maya was going to go on a
    keto diet", "Ben wants to go on a diet"): read back to the clause's start."""
    for i in range(len(toks) - 1, -1, -1):
        low = toks[i].lower()
        if low in (",", ";", ":", "and", "but", "so"):
            return False
        if low == "to" and i > 0 and toks[i - 1].lower() in SWITCHED:
            continue
        if low in NON_FACTUAL and low != "about":
            return True
    return False


FACTIVE = frozenset(
    """like likes love loves enjoy enjoys hate hates adore adores dislike dislikes mind minds
    prefer prefers keep keeps kept""".split()
)
"""Verbs before a gerund that take it as so: "I really like living in Graz" says where the
speaker lives."""


def _complement(rest: str, before: str) -> bool:
    """A gerund after a word that is not its subject: the object of another verb or of a
    preposition ("I decided against going vegan", "I've looked into cycling to work"),
    which says nothing of what the subject does (but "I'm going vegan", "I've started
    cycling" do)."""
    first = TOKEN.match(rest)
    if first is None or not first.group(0).lower().endswith("ing"):
        return False
    return _verb_like(before) and before not in FACTIVE


def _subject_at(toks: list[str], i: int, sentence: str, ctx: Context) -> str | None:
    word, low = toks[i], toks[i].lower()
    if low in FIRST_PERSON:
        return ctx.me
    if low in THIRD_PRONOUNS:
        return ctx.antecedent
    if low == "you":
        return None
    if low == "and" or low in (",", ";", ":"):
        return clause_subject(sentence, ctx)
    if is_name(word):
        j = i
        while j > 0 and is_name(toks[j - 1]) and not toks[j - 1].endswith(("'s", "’s")):
            j -= 1
        return name_key(toks[j])
    if low in ctx.entities:
        return low
    if low in RELATIONS and i > 0:
        owner = owner_key(toks[i - 1], ctx) if _possessive(toks[i - 1]) else None
        return f"{owner}>{low}" if owner else None
    return clause_subject(sentence, ctx)


def _possessive(word: str) -> bool:
    low = word.lower()
    return low in FIRST_POSSESSIVE or low in THIRD_POSSESSIVE or low.endswith(("'s", "’s"))


def clause_subject(sentence: str, ctx: Context) -> str | None:
    """The first subject-like words of a clause, after openers ("After losing Miso, I ...",
    "Since the renovation I ...", "Starting in May, the team sync ...")."""
    toks = TOKEN.findall(sentence)
    openers = ("after", "since", "starting", "before", "in", "following")
    if toks and toks[0].lower() in openers and "," in toks[:9]:
        toks = toks[toks.index(",") + 1 :]
    for i, word in enumerate(toks):
        low = word.lower()
        contracted = CONTRACTED.match(low)
        if contracted and contracted.group("tail") not in ("d", "ll"):
            low = contracted.group("head")
        if low in FIRST_PERSON:
            return ctx.me
        if low in THIRD_PRONOUNS:
            return ctx.antecedent
        if low in FIRST_POSSESSIVE or low in THIRD_POSSESSIVE or word.endswith(("'s", "’s")):
            owner = owner_key(word, ctx)
            rest = toks[i + 1 : i + 3]
            if rest and rest[0].lower() in RELATIONS:
                if len(rest) > 1 and is_name(rest[1]):
                    return name_key(rest[1])
                return f"{owner}>{rest[0].lower()}" if owner else None
            return owner
        if is_name(word) or low in ctx.entities:
            return name_key(word)
        if low in ("the", "a", "an") or low in SKIP or low in (",", ";", ":"):
            continue
        if low in ("you", "someone", "somebody", "everyone", "nobody", "it", "there"):
            return None
        if i > 3:
            return None
    return None
