"""Newer answers from outside the pool: for a question about the present that asks for a
value ("how many interviews have I secured", "what is my budget"), each of the first
memories that answers it is looked up again, by the sentence that answers, among the
memories said after it.

A new value said in passing often shares few of the question's words ("how can I
leverage the fact that I secured 5 interviews"), and in a bank of a few hundred turns
the words of long answers push it out of both candidate lists; the sentence it updates
reads close to it. What this finds is only offered to the outdated stage
(`readmodel.recall.outdated`, `later`): a found memory joins the results only when it
answers the same question, of the same subject, with another value, in place of the
memory it outdates; the rest is dropped. One embedder call and one batched search,
only for such questions; nothing stored changes.
"""

from collections.abc import Callable, Sequence
from dataclasses import replace as replace_filter

from contracts.memory import State
from readmodel.embedders import Vectors
from readmodel.recall.answers import answering, question
from readmodel.recall.candidate import Candidate
from readmodel.recall.outdated import TOP, present_question
from readmodel.store import Filter, Hit, Vector

PROBES = 3
"""Answering memories of the first `TOP` looked up again: the answer is near the top."""
PER_PROBE = 5
"""Newer memories read per answering memory, besides those of the first `TOP`."""

Search = Callable[[Sequence[tuple[Vector, Filter]], int], list[list[Hit]]]
Embed = Callable[[Sequence[str]], Vectors]


def probes(ordered: Sequence[Candidate], query: str) -> list[tuple[Candidate, str]]:
    """The first `PROBES` of the first `TOP` that answer `query` (a question about the
    present asking a type of value), each with its answering sentence; none for any
    other question."""
    asked = question(query)
    if asked is None or not present_question(query):
        return []
    found: list[tuple[Candidate, str]] = []
    for c in ordered[:TOP]:
        said = answering(asked, c.record.text)
        if said is not None and said.sentence:
            found.append((c, said.sentence))
            if len(found) == PROBES:
                break
    return found


def newer_answers(
    ordered: Sequence[Candidate], query: str, flt: Filter, embed: Embed, search: Search
) -> list[Candidate]:
    """Current memories said after one of `probes(ordered, query)` that read nearest to its
    answering sentence, and that `ordered`'s first `TOP` do not hold; each carries the
    cosine and pool place of the memory it was found from (it stands in for that one if
    it outdates it)."""
    found = probes(ordered, query)
    if not found:
        return []
    vectors = embed([sentence for _, sentence in found])
    scopes = [
        replace_filter(
            flt,
            state=State.CURRENT,
            occurred_from=max(filter(None, (flt.occurred_from, c.record.occurred_at))),
        )
        for c, _ in found
    ]
    hits = search(list(zip(vectors, scopes, strict=True)), PER_PROBE + TOP)
    seen = {c.id for c in ordered[:TOP]}
    out: list[Candidate] = []
    for (probe, _), row in zip(found, hits, strict=True):
        for h in row:
            if h.record.id in seen or h.record.occurred_at <= probe.record.occurred_at:
                continue
            seen.add(h.record.id)
            out.append(Candidate(h.record, vector=probe.vector, stats=h.stats, deep=probe.deep))
    return out
