"""Standing instructions with the results (`readmodel.instructions` says what one is).

An instruction shares few words with the questions it governs, so the fused score,
which weighs words, leaves it far down: on BEAM dev (static embedder) the one that
applies was in Sediment's first ten for 3 of 20 instruction questions, and in the
first fifty for 10. Among the bank's instructions alone the cosine picks the right
one for 17 of 20. So recall searches the bank's instructions on their own, under the
request's filter, and the one closest to the question (by cosine, at least the
semantic floor) takes a place near the top of the results: second, so the best
answer keeps the first place and a single-result recall gets no instruction
(docs/decisions/0049).
"""

from collections.abc import Sequence
from dataclasses import replace

from readmodel.recall.candidate import Candidate
from readmodel.store import Filter, MemoryStore, Vector

INSTRUCTION_DEPTH = 3
"""Instructions fetched per recall: the closest, and spares for one that a later stage
(current state, as of) replaces or drops."""


def is_instruction(c: Candidate) -> bool:
    """Stated a standing instruction when it was written (its stored `TextStats`)."""
    return c.stats is not None and c.stats.instruction is not None


def fetch_instructions(store: MemoryStore, vector: Vector, flt: Filter) -> list[Candidate]:
    """The bank's standing instructions closest to the question, under `flt`; dense
    evidence only (a cosine, no rank in the question's own dense list)."""
    hits = store.search_dense(vector, replace(flt, instructions=True), INSTRUCTION_DEPTH)
    return [Candidate(h.record, vector=min(1.0, max(0.0, h.score)), stats=h.stats) for h in hits]


def place_instruction(
    ordered: Sequence[Candidate], floor: float, place: int
) -> tuple[list[Candidate], Candidate | None]:
    """`ordered` with its instruction closest to the question (cosine at least `floor`)
    moved up to `place` (1-based) when it stood lower; the instruction placed, or None.
    `place` 0 places none."""
    out = list(ordered)
    if place < 1:
        return out, None
    found = [(i, c) for i, c in enumerate(out) if is_instruction(c) and c.vector >= floor]
    if not found:
        return out, None
    i, best = max(found, key=lambda f: (f[1].vector, -f[0]))
    if i > place - 1:
        out.insert(place - 1, out.pop(i))
    return out, best
