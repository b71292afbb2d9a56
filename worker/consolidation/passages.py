"""The passage vectors of long memories (`readmodel.passages`), embedded with the
memory: one embedder call for the passages of every memory of a batch."""

from collections.abc import Sequence

import numpy as np

from readmodel.embedders import Embedder
from readmodel.passages import passage_spans, passage_texts
from readmodel.store import StoredPoint, Vector


def passage_vectors(embedder: Embedder, texts: Sequence[str]) -> list[Vector | None]:
    """For each text, its passages' vectors (a row each), or None for a text of one
    passage."""
    spans = [passage_spans(t) for t in texts]
    pieces = [p for t, s in zip(texts, spans, strict=True) for p in passage_texts(t, s)]
    if not pieces:
        return [None] * len(texts)
    rows = np.asarray(embedder.embed(pieces), dtype=np.float32)
    out: list[Vector | None] = []
    at = 0
    for s in spans:
        out.append(rows[at : at + len(s)] if s else None)
        at += len(s)
    return out


def with_passages(embedder: Embedder, points: Sequence[StoredPoint]) -> list[StoredPoint]:
    """`points` with the passage vectors of those long enough to have passages and
    stored without them (written before passages existed); the rest as they are."""
    todo = [i for i, p in enumerate(points) if p.passages is None and passage_spans(p.record.text)]
    if not todo:
        return list(points)
    vectors = passage_vectors(embedder, [points[i].record.text for i in todo])
    out = list(points)
    for i, v in zip(todo, vectors, strict=True):
        p = out[i]
        out[i] = StoredPoint(p.record, p.dense, p.sparse, p.stats, v)
    return out
