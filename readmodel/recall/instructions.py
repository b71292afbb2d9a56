"""Standing instructions with the results (`readmodel.instructions` says what one is).

An instruction shares few words with the questions it governs, so the fused score,
which weighs words, leaves it far down: on BEAM dev (static embedder) the one that
applies was in Sediment's first ten for 3 of 20 instruction questions, and in the
first fifty for 10. Among the bank's instructions alone the cosine picks the right
one for 17 of 20. So recall searches the bank's instructions on their own, under the
request's filter, and the one closest to the question (by cosine, at least the
semantic floor) takes a place near the top of the results: second, so the best
answer keeps the first place and a single-result recall gets no instruction
(docs/decisions/0049). Only when the question singles it out: a bank's rules are all
loosely close to every question about its topics, and a rule no closer than the next
one (for another condition) governs none of them in particular, while the place it
takes costs an answer (docs/decisions/0053).
"""

from collections.abc import Sequence
from dataclasses import replace as replace_filter

from readmodel.instructions import FRAME_WORDS
from readmodel.recall.candidate import Candidate, replace
from readmodel.recall.outdated import another_value, words_of
from readmodel.store import Filter, MemoryStore, Vector
from readmodel.text import STOPWORDS, stem

INSTRUCTION_DEPTH = 3
"""Instructions fetched per recall: the closest, and spares for one that a later stage
(current state, as of) replaces or drops."""


def is_instruction(c: Candidate) -> bool:
    """Stated a standing instruction when it was written (its stored `TextStats`)."""
    return c.stats is not None and c.stats.instruction is not None


def fetch_instructions(store: MemoryStore, vector: Vector, flt: Filter) -> list[Candidate]:
    """The bank's standing instructions closest to the question, under `flt`; dense
    evidence only (a cosine, no rank in the question's own dense list)."""
    hits = store.search_dense(vector, replace_filter(flt, instructions=True), INSTRUCTION_DEPTH)
    return [Candidate(h.record, vector=min(1.0, max(0.0, h.score)), stats=h.stats) for h in hits]


def _condition(c: Candidate) -> tuple[str, ...]:
    """The stems of the words saying when the instruction applies."""
    assert c.stats is not None and c.stats.instruction is not None
    start, end = c.stats.instruction
    return tuple(stem(w) for w in words_of(c.record.text[start:end]) if w not in STOPWORDS)


def _asks(c: Candidate) -> set[str]:
    """The stems of what the instruction asks: its words outside the condition, less
    the words that frame every rule."""
    assert c.stats is not None and c.stats.instruction is not None
    start, end = c.stats.instruction
    text = c.record.text[:start] + " " + c.record.text[end:]
    return {stem(w) for w in words_of(text) if w not in STOPWORDS and w not in FRAME_WORDS}


def newer_rule(rule: Candidate, candidates: Sequence[Candidate]) -> Candidate | None:
    """The newest instruction among `candidates` that replaces `rule`: the same condition,
    the same words but for one short span (another value: "use APA style" / "use MLA
    style") and what it asks sharing a word besides, stated later, and not already
    joined to it by a supersession. A second rule for the same condition that asks
    something else ("include page numbers") replaces nothing."""
    condition = _condition(rule)
    words = words_of(rule.record.text)
    asks = _asks(rule)
    newer = [
        c
        for c in candidates
        if is_instruction(c)
        and c.record.occurred_at > rule.record.occurred_at
        and rule.record.superseded_by != c.id
        and _condition(c) == condition
        and another_value(words, words_of(c.record.text), set(condition))
        and bool(_asks(c) & asks)
    ]
    return max(newer, key=lambda c: (c.record.occurred_at, str(c.id)), default=None)


def singled_out(best: Candidate, candidates: Sequence[Candidate], ratio: float) -> bool:
    """Whether the question singles out the rule `best`: its cosine distance to the
    question is at most `ratio` times that of the closest rule for another condition
    (a ratio test, as in matching image features: a match is kept when it is clearly
    better than the runner-up). Rules for the same condition (versions of one rule,
    "use APA style" then "use MLA style") or asking the same thing (one rule said twice,
    "when I ask about money" and "when we talk about finances") count as one; with no
    other rule, or a `ratio` of 1, it is singled out."""
    condition, asks = _condition(best), _asks(best)
    others = [
        c.vector
        for c in candidates
        if is_instruction(c) and _condition(c) != condition and not (asks and _asks(c) == asks)
    ]
    if not others:
        return True
    return 1.0 - best.vector <= ratio * (1.0 - max(others))


def place_instruction(
    ordered: Sequence[Candidate],
    floor: float,
    place: int,
    current: bool = True,
    ratio: float = 1.0,
) -> tuple[list[Candidate], Candidate | None]:
    """`ordered` with its instruction closest to the question (cosine at least `floor`,
    and `singled_out` at `ratio`) moved up to `place` (1-based) when it stood lower, or,
    when a later instruction for the same condition replaces it (`newer_rule`), that
    one, ahead of the one it replaces; the instruction placed, or None. With `current`
    (no `history`, no `as_of`) the replaced one says `outdated_by`. `place` 0 places
    none."""
    out = list(ordered)
    if place < 1:
        return out, None
    found = [(i, c) for i, c in enumerate(out) if is_instruction(c) and c.vector >= floor]
    if not found:
        return out, None
    i, best = max(found, key=lambda f: (f[1].vector, -f[0]))
    if not singled_out(best, out, ratio):
        return out, None
    target = place - 1
    newer = newer_rule(best, out)
    if newer is not None:
        if current:
            out[i] = replace(best, outdated_by=newer.id)
        target = min(target, i)
        i, best = out.index(newer), newer
    if i > target:
        out.insert(target, out.pop(i))
    return out, best
