"""Feature-hashing embedder: no model and no I/O, so unit tests are fast and reproducible.

It only knows surface overlap (shared words and character trigrams), which is enough for
tests that need "similar text scores higher" but says nothing about meaning.
"""

import hashlib
import math
import re
from collections.abc import Iterator, Sequence

import numpy as np

from readmodel.embedders import Vectors

_WORD = re.compile(r"\w+")
_TRIGRAM_WEIGHT = 0.5
_EMPTY_FEATURE = "\x00empty"


def _features(text: str) -> Iterator[tuple[str, float]]:
    for word in _WORD.findall(text.lower()):
        yield "w:" + word, 1.0
        padded = f"#{word}#"
        for start in range(len(padded) - 2):
            yield "c:" + padded[start : start + 3], _TRIGRAM_WEIGHT


class HashEmbedder:
    """Signed feature hashing of words and trigrams, L2-normalised.

    blake2b rather than `hash()` because `hash()` of a str is salted per process, and stored
    vectors must match vectors computed by another process.
    """

    def __init__(self, dimension: int = 256) -> None:
        if dimension < 1:
            raise ValueError(f"dimension must be positive, got {dimension}")
        self._dimension = dimension

    @property
    def name(self) -> str:
        return f"hash-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows = [self._embed_one(text) for text in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), self._dimension)

    def _embed_one(self, text: str) -> tuple[float, ...]:
        vector = [0.0] * self._dimension
        for feature, weight in _features(text):
            self._add(vector, feature, weight)
        if not any(vector):
            self._add(vector, _EMPTY_FEATURE, 1.0)
        norm = math.sqrt(math.fsum(x * x for x in vector))
        return tuple(x / norm for x in vector)

    def _add(self, vector: list[float], feature: str, weight: float) -> None:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        bits = int.from_bytes(digest, "little")
        sign = 1.0 if bits & 1 else -1.0
        vector[(bits >> 1) % self._dimension] += sign * weight
