"""Optional reranker: a port, a timeout, a TTL cache, and fail-open."""

import hashlib
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from typing import Protocol

from readmodel.recall.candidate import Candidate


class Reranker(Protocol):
    """Relevance of each text to the query, higher is better, in 0..1."""

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


@dataclass
class RerankOutcome:
    candidates: list[Candidate]
    note: str


@dataclass
class RerankStage:
    """Calls the reranker with a timeout; on timeout or error keeps the previous order."""

    reranker: Reranker
    timeout_ms: float
    cache_ttl_s: float
    weight: float = 0.5
    _cache: dict[str, tuple[float, list[float]]] = field(default_factory=dict)
    _pool: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(max_workers=2))

    def _key(self, query: str, candidates: list[Candidate]) -> str:
        body = query + "\x1f" + "\x1f".join(str(c.id) for c in candidates)
        return hashlib.sha256(body.encode()).hexdigest()

    def _scores(self, query: str, candidates: list[Candidate]) -> tuple[list[float], str]:
        key = self._key(query, candidates)
        hit = self._cache.get(key)
        if hit is not None and time.monotonic() - hit[0] < self.cache_ttl_s:
            return hit[1], "cache"
        future = self._pool.submit(self.reranker.score, query, [c.record.text for c in candidates])
        scores = future.result(timeout=self.timeout_ms / 1000.0)
        if len(scores) != len(candidates):
            raise ValueError(f"reranker returned {len(scores)} scores for {len(candidates)} texts")
        self._cache[key] = (time.monotonic(), scores)
        return scores, "ok"

    def __call__(self, query: str, candidates: list[Candidate]) -> RerankOutcome:
        if not candidates:
            return RerankOutcome(candidates, "nothing to rerank")
        try:
            scores, how = self._scores(query, candidates)
        except FutureTimeout:
            return RerankOutcome(candidates, f"timeout after {self.timeout_ms:g} ms: order kept")
        except Exception as exc:
            return RerankOutcome(candidates, f"failed ({type(exc).__name__}): order kept")
        out = [
            replace(c, rerank=s, score=(1 - self.weight) * c.score + self.weight * s)
            for c, s in zip(candidates, scores, strict=True)
        ]
        return RerankOutcome(out, f"reranked ({how})")
