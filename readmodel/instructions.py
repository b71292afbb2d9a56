"""Standing instructions: what a user tells an assistant to do whenever a topic comes up
("Always include version numbers when I ask about libraries", "When we talk about
money, give amounts in euros", "From now on, answer in Spanish").

Such a memory is not an answer to a question on its topic but a rule for answering
it, and shares few words with the questions it governs ("Which libraries does this
project use?"), so ranked by its words it sinks under the memories that discuss the
topic. Recall finds a bank's instructions on their own and places the one that
applies with the results (`readmodel.recall.instructions`).

`instruction_scope` is pure and deterministic; its span is written with the record
(`TextStats.instruction`), so no recall parses a stored text to find its rules (only
the few rules a recall places are read into words, to tell a replaced one).
"""

import re
from typing import Final

_LEAD: Final = (
    r"(?:(?:please|also|and|so|ok(?:ay)?|oh|hey|but|i'?d\s+like\s+you\s+to|"
    r"i\s+(?:want|need)\s+you\s+to|(?:can|could|would|will)\s+you)\s*,?\s+)*"
)
"""Words a request may open with before its verb ("I'd like you to ...", "could you ...")."""

_DIRECTIVE: Final = (
    r"(?:always|never|only|just|don'?t|do\s+not|make\s+sure|be\s+sure|remember|"
    r"use|include|give|provide|format|show|list|answer|reply|respond|write|keep|add|"
    r"mention|put|start|stop|avoid|stick|cite|explain|remind|tell|quote|report|confirm|"
    r"highlight|specify|state|suggest|recommend|limit|skip|structure|maintain|tailor|"
    r"focus|break|walk|label|mark|convert|express|round|present|summari[sz]e|translate)\b"
)
"""How an instruction's main clause opens: an adverb of habit or a verb of answering,
in the imperative (the speaker's own habits open with "I": "I always ...")."""

_ASKING: Final = (
    r"(?:ask|asking|talk|talking|chat|chatting|inquire|enquire|request|discuss|"
    r"bring\s+up|mention|have\s+(?:a\s+)?questions?|need\s+help|want\s+help|come\s+to\s+you)"
)
_CONDITION: Final = (
    r"(?:when(?:ever)?|if|every\s+time|any\s*time|each\s+time|whenever)\s+(?:I|we)\s+"
    r"(?:\w+\s+){0,2}?" + _ASKING + r"(?:\s+you)?(?:\s+(?:about|for|on|regarding|around|with))?\s+"
)
_SCOPE: Final = r"(?P<scope>[^,;:.!?\n]+?)"
_END: Final = r"\s*(?=$|[.!?;\n]|->->)"

_AFTER = re.compile(
    r"(?:^|[.!?\n]\s*)(?:[A-Z][\w'-]{0,30}:\s*)?"
    + _LEAD
    + _DIRECTIVE
    + r"[^.!?\n]*?\b"
    + _CONDITION
    + _SCOPE
    + _END,
    re.IGNORECASE,
)
"""The rule, then when it holds: "Always X when I ask about Y"."""

_BEFORE = re.compile(
    r"(?:^|[.!?\n]\s*)(?:[A-Z][\w'-]{0,30}:\s*)?"
    + _LEAD
    + _CONDITION
    + _SCOPE
    + r"\s*,\s*"
    + _LEAD
    + _DIRECTIVE,
    re.IGNORECASE,
)
"""When it holds, then the rule: "Whenever I ask about Y, please X"."""

_FOR = re.compile(
    r"(?:^|[.!?\n]\s*)(?:[A-Z][\w'-]{0,30}:\s*)?"
    + _LEAD
    + r"for\s+(?:any|all|every)?\s*(?:questions?|requests?|anything|everything)\s+"
    r"(?:about|on|regarding|related\s+to|involving)\s+" + _SCOPE + r"\s*,\s*" + _LEAD + _DIRECTIVE,
    re.IGNORECASE,
)
"""A topic, then the rule: "For questions about Y, always X"."""

_FROM_NOW = re.compile(
    r"(?:^|[.!?\n]\s*)(?:[A-Z][\w'-]{0,30}:\s*)?"
    + _LEAD
    + r"(?:from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future)\s*,?\s+"
    + _LEAD
    + r"(?P<scope>"
    + _DIRECTIVE
    + r"[^.!?\n]*?)"
    + _END,
    re.IGNORECASE,
)
"""A rule for everything from now on: "From now on, answer in Spanish" (its scope is
the rule itself)."""

_FORMS: Final = (_AFTER, _BEFORE, _FOR, _FROM_NOW)

FRAME_WORDS: Final = frozenset(
    "always never please ask asking asked talk talking chat inquire enquire request "
    "discuss mention whenever every each time anytime question questions now forward "
    "future going".split()
)
"""Words of the forms above that frame a rule (when it holds, how often) and say
nothing of what it asks: two rules share them whatever they ask."""


def instruction_scope(text: str) -> tuple[int, int] | None:
    """The span of `text` naming when a standing instruction in it applies (the topic
    of "when I ask about ..."; for a rule "from now on", the rule), or None when the
    text states no standing instruction. The first instruction in the text wins."""
    found: list[tuple[int, int]] = []
    for form in _FORMS:
        m = form.search(text)
        if m is not None:
            start, end = m.span("scope")
            scope = text[start:end]
            lead = len(scope) - len(scope.lstrip())
            found.append((start + lead, start + len(scope.rstrip())))
    return min(found) if found else None
