"""A length prior: a long memory costs a reader more of the context it can afford.

Neither evidence is normalised by length (the keyword vector carries saturated term
frequency and no length norm; a long text's embedding matches more topics), so a long
memory outranks a short one that says the same thing, and one long result can take
most of a caller's token budget. Above `ref_tokens` whitespace tokens the score is
multiplied by `(ref_tokens / tokens) ** weight`; shorter memories are untouched.
"""

from readmodel.recall.candidate import Candidate, replace, text_stats


def length_factor(tokens: int, weight: float, ref_tokens: int) -> float:
    if weight <= 0 or tokens <= ref_tokens:
        return 1.0
    return float((ref_tokens / tokens) ** weight)


def length_prior(candidates: list[Candidate], weight: float, ref_tokens: int) -> list[Candidate]:
    out = []
    for c in candidates:
        factor = length_factor(text_stats(c).tokens, weight, ref_tokens)
        out.append(c if factor == 1.0 else replace(c, score=c.score * factor))
    return out
