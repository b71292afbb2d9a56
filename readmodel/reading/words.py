"""Stage 1, words: a statement normalised, cut into clauses, and each clause into tokens.

Pure: Unicode NFC, typographic quotes made plain, contractions spelt out ("I'm" -> "I
am", "doesn't" -> "does not"), openers that carry nothing ("By the way,") dropped, and a
possessive "'s" kept as a token of its own, so later stages see "Dan 's wife".
"""

import re
import unicodedata
from dataclasses import dataclass

from readmodel.reading import grammar as g

_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"})
_CONTRACTIONS = (
    (re.compile(r"\bcan't\b", re.I), "can not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\bain't\b", re.I), "is not"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\b(I)'m\b", re.I), r"\1 am"),
    (re.compile(r"\b(\w+)'re\b", re.I), r"\1 are"),
    (re.compile(r"\b(\w+)'ve\b", re.I), r"\1 have"),
    (re.compile(r"\b(\w+)'ll\b", re.I), r"\1 will"),
    (re.compile(r"\b(I|you|he|she|we|they)'d\b", re.I), r"\1 would"),
    (re.compile(r"\b(he|she|it|that|there|what|who|where)'s\b", re.I), r"\1 is"),
)
_OPENERS = re.compile(
    r"^(?:(?:by\s+the\s+way|quick\s+update|guess\s+what|just\s+so\s+you\s+know|for\s+the\s+record|"
    r"fun\s+fact|heads\s+up|oh|so|well|ok|okay|hey|hi|anyway|btw|fyi|update|news|yeah|yes|"
    r"correction|reminder|note|actually|also|just|to\s+be\s+clear|as\s+it\s+happens|honestly)"
    r"\b[,:!.\-]?\s+)+",
    re.I,
)
_SENTENCE = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bJr\.)(?<!\bvs\.)"
    r"(?<!\bProf\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<=\.)\s+(?=[^\sa-z])"
    r"|(?<=[!?;])\s+(?=\S)"
)
"""A sentence ends after ".", "!", "?" or ";" and space, but for a known abbreviation; a
word in lower case after a full stop goes on the sentence ("Petal & Co. as an
accountant")."""
_TOKEN = re.compile(
    r"(?:Mr|Mrs|Ms|Dr|Prof|St|Jr)\.|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*(?:st|nd|rd|th)?|[$€£%]"
    r"|'s\b|[^\W_]+(?:[-.@][^\W_]+)*|[^\w\s]",
    re.UNICODE,
)
_SPEAKER = re.compile(r"^\s*([A-Z][\w.-]*)\s*:\s+")


@dataclass(frozen=True)
class Token:
    """`text` as written, `low` lowercased, `start` whether it opens its clause."""

    text: str
    low: str
    start: bool

    @property
    def capitalised(self) -> bool:
        return self.text[:1].isupper()


_IS_BEFORE = re.compile(
    r"\b(\w+)'s\s+(?=(?:a|an|the|not|never|no|very|so|also|still|now|always|my|our|your)\b)",
    re.I,
)


def normalise(text: str) -> str:
    """NFC, plain quotes, contractions spelt out ("Lina's a pilot": "Lina is a pilot"),
    and a text in capitals only in lower case (its shouting is not names)."""
    text = unicodedata.normalize("NFC", text).translate(_QUOTES)
    if text.isupper():
        text = text.lower()
    text = _IS_BEFORE.sub(r"\1 is ", text)
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def speaker_of(text: str) -> tuple[str | None, str]:
    """A "Name: ..." prefix names who says the rest: (name, rest)."""
    found = _SPEAKER.match(text)
    if found is None or found.group(1).lower() in {"note", "update", "correction", "reminder"}:
        return None, text
    return found.group(1).lower(), text[found.end() :]


_LABEL = re.compile(r"^\s*(?:【[^】]{1,80}】|\[[^\]]{1,80}\])\s*")
"""A heading a record opens with ("【Travel Plan】", "[Fitness]"): a label, not a statement."""
_NOTE = re.compile(r"^([^:]{1,40}?)\s*:\s+(\S.*)$")
_LEADING = frozenset("as but and so like because".split())
DISCOURSE_VERBS = frozenset(
    """say tell mention think guess believe know remember note recall suppose reckon
    imagine hope bet forget""".split()
)
"""Verbs of saying and thinking: "As I mentioned," or "I think I told you, but" frame
what follows and state nothing of their own."""


def _is_discourse(segment: str) -> bool:
    words = [t.low for t in tokens(segment)]
    while words and words[0] in _LEADING:
        words = words[1:]
    if not words or words[0] not in {"i", "we", "you"} or len(words) > 6:
        return False
    return any(g.verb_lemma(w) in DISCOURSE_VERBS for w in words[1:])


def _without_discourse(sentence: str) -> str:
    segments = [s for s in sentence.split(", ") if not _is_discourse(s)]
    if not segments:
        return sentence
    first = segments[0].split(" ", 1)
    if len(first) == 2 and first[0].lower() in _LEADING - {"as", "like"}:
        segments[0] = first[1]
    return ", ".join(segments)


def clauses(text: str) -> list[str]:
    """The sentences of a normalised text, each without the heading or openers it starts
    with and without a clause of saying or thinking that frames it, an adverbial it opens
    with said after it; a question by what it takes as given (`_given`)."""
    out = []
    for sentence in _SENTENCE.split(text):
        sentence = _given(_OPENERS.sub("", _LABEL.sub("", sentence.strip())))
        sentence = sentence.strip(" .!?;")
        sentence = _adverbial_last(_without_aside(_without_discourse(sentence)))
        if sentence:
            out.append(sentence)
    return out


_GIVEN = re.compile(
    r"^(?:now that|since|given that|because|seeing that|as)\s+(?P<given>[^,?]+),\s*\S[^?]*\?$",
    re.I,
)


def _given(sentence: str) -> str:
    """A question that opens by what it takes as given ("Now that the audit is done, can
    we relax?") states that clause, and only that."""
    found = _GIVEN.match(sentence.strip())
    return found.group("given") if found else sentence


_MAX_ASIDE = 3


def _without_aside(sentence: str) -> str:
    """A sentence without a short aside it opens with ("Side note, the launch is on May
    3", "Random thing but, ...", "Quick note - ..."): a segment of at most three words,
    all words of English (not a name: "Dan, my brother, lives in Oslo"), none only a
    verb, before a new clause's subject (a determiner, possessive or pronoun). One that
    says when ("Last week, I moved") is no aside: it is said after the clause; one of a
    preposition, a number or a name is left to be read as it is ("Since March, the API
    ...")."""
    head, sep, rest = sentence.partition(", ")
    if not sep:
        head, sep, rest = sentence.partition(" - ")
    words = head.split()
    if not sep or not rest or len(words) > _MAX_ASIDE or words[0].lower() in g.PREPOSITIONS:
        return sentence
    if any(c.isdigit() for c in head) or any(w[:1].isupper() for w in words[1:]):
        return sentence
    if rest.split()[0].lower() not in _NEW_PHRASE:
        return sentence
    low = [w.lower() for w in words]
    if any(w not in g.FUNCTION_WORDS and (not g.lemmas(w) or g.only_verb(w)) for w in low):
        return sentence
    return _after(rest.split(), words) if g.TIME_WORDS & set(low) else rest


_MAX_ADVERBIAL = 5
_NEW_PHRASE = g.DETERMINERS | frozenset(g.POSSESSIVES) | frozenset(g.SUBJECT_PRONOUNS)


def _adverbial_last(sentence: str) -> str:
    """A sentence that opens with a phrase of a preposition ("As of today the Falcon
    project is approved", "In 2020 I moved to Berlin") said with the phrase after the
    clause, where a subject is read first and the phrase keeps its values: the phrase
    ends before the next determiner, pronoun or name once it has a word of its own."""
    words = sentence.split()
    if len(words) < 3 or words[0].lower() not in g.PREPOSITIONS | {"as"}:
        return sentence
    own = False
    for i, word in enumerate(words[1 : _MAX_ADVERBIAL + 1], start=1):
        bare = word.strip(",")
        low = bare.lower()
        if low in g.AUXILIARIES or g.only_verb(low):
            return sentence
        starts = low in _NEW_PHRASE or (bare[:1].isupper() and low not in g.TITLES)
        if own and starts:
            return _after(words[i:], words[:i])
        own = own or low not in g.FUNCTION_WORDS
        if word.endswith(","):
            return _after(words[i + 1 :], words[: i + 1])
    return sentence


def _after(clause: list[str], phrase: list[str]) -> str:
    """The clause's words, then the phrase it opened with (its first letter lowered)."""
    said = " ".join(phrase).rstrip(",")
    return " ".join([*clause, said[:1].lower() + said[1:]])


_ABOUT = re.compile(r"\b(?:on|about|of|re|for)\s+((?:the|my|our)\s+[^,:]+)$", re.I)
_BACK = re.compile(r"^(?:it|they)\b", re.I)


def as_note(text: str) -> str | None:
    """A terse note ("CI: Node 20", "Timezone: Europe/Berlin") said as a sentence ("CI is
    Node 20"), or None when the text is not of that shape or bids something be done. A
    note whose head names what it is about and whose body refers back to it ("Update on
    the CRM rollout: it's delayed") is its body said of that ("the CRM rollout is
    delayed"); one whose body is a clause of its own is that clause ("Bad news: the
    audit was cancelled")."""
    found = _NOTE.match(_LABEL.sub("", text.strip()))
    if found is None:
        return None
    head, body = found.group(1), found.group(2)
    about = _ABOUT.search(head)
    if about is not None and _BACK.match(body):
        return _BACK.sub(about.group(1), body, count=1)
    if body.split()[0].lower() in _NEW_PHRASE - {"it", "they"}:
        return body
    if _bidding(body):
        return None
    return f"{head} is {body}"


def _bidding(body: str) -> bool:
    """A body that bids something be done ("book the venue", "call Dana"): a verb before
    its object, which a note's head is not ("Plan for the party: book the venue")."""
    found = tokens(body)
    if len(found) < 2 or not g.can_be_verb(found[0].low):
        return False
    after = found[1]
    return after.low in g.DETERMINERS | frozenset(g.POSSESSIVES) or (
        after.capitalised and g.verb_form(found[0].low) in {"VB", "VBP"}
    )


def tokens(clause: str) -> tuple[Token, ...]:
    found = [t for t in _TOKEN.findall(clause) if t not in {",", '"', "(", ")", "-"}]
    return tuple(Token(t, t.lower(), i == 0) for i, t in enumerate(found))
