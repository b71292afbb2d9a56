"""Optional reranker: a port, a timeout, a bounded TTL cache, and fail-open.

A thread cannot be stopped, so a call that times out keeps its worker busy until the
model returns. At most `max_in_flight` calls run at once; when all are taken by slow
calls, a recall does not queue behind them: it keeps its order at once and says so.
"""

import hashlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from typing import Protocol

from readmodel.embedders import Embedder
from readmodel.recall.candidate import Candidate

CACHE_SIZE = 4096
MAX_IN_FLIGHT = 2


class Reranker(Protocol):
    """Relevance of each text to the query, higher is better, in 0..1."""

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


class EmbeddingReranker:
    """Cosine of a second, stronger embedder over the top candidates, clipped to 0..1.

    A cross-encoder reads query and text together and is the better reranker, but none
    ships offline; MiniLM (`SEDIMENT_RECALL_RERANKER=minilm`) is the model the shipped
    static embedder was distilled from, so rescoring the top of the static ranking with
    it recovers part of what the distillation lost, at one batch of encoding per recall.
    """

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder

    @property
    def name(self) -> str:
        return self._embedder.name

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        q, *rows = self._embedder.embed([query, *texts])
        return [
            min(1.0, max(0.0, math.fsum(a * b for a, b in zip(q, r, strict=True)))) for r in rows
        ]


class ScoreCache:
    """(query, text) to score, for `ttl_s` seconds, at most `size` entries (least
    recently used out first). Keys are hashes: the cache holds no text."""

    def __init__(self, ttl_s: float, size: int, clock: Callable[[], float]) -> None:
        self.ttl_s, self.size, self._clock = ttl_s, size, clock
        self._entries: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(query: str, text: str) -> str:
        return hashlib.sha256(f"{query}\x1f{text}".encode()).hexdigest()

    def get(self, key: str) -> float | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if self._clock() - entry[0] >= self.ttl_s:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: str, score: float) -> None:
        if self.ttl_s <= 0 or self.size <= 0:
            return
        with self._lock:
            self._entries[key] = (self._clock(), score)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class RerankOutcome:
    candidates: list[Candidate]
    note: str


class Busy(Exception):
    """Every reranker slot is held by a call still running."""


class RerankStage:
    """Calls the reranker with a timeout; on timeout, error or saturation keeps the order."""

    def __init__(
        self,
        reranker: Reranker,
        timeout_ms: float,
        cache_ttl_s: float,
        weight: float = 0.5,
        cache_size: int = CACHE_SIZE,
        max_in_flight: int = MAX_IN_FLIGHT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.reranker, self.timeout_ms, self.weight = reranker, timeout_ms, weight
        self.name: str = getattr(reranker, "name", type(reranker).__name__)
        self.cache = ScoreCache(cache_ttl_s, cache_size, clock)
        self._slots = threading.BoundedSemaphore(max_in_flight)
        self._pool = ThreadPoolExecutor(max_workers=max_in_flight, thread_name_prefix="rerank")

    def _call(self, query: str, texts: list[str]) -> list[float]:
        if not self._slots.acquire(blocking=False):
            raise Busy
        try:
            future: Future[list[float]] = self._pool.submit(self.reranker.score, query, texts)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        scores = future.result(timeout=self.timeout_ms / 1000.0)
        if len(scores) != len(texts):
            raise ValueError(f"reranker returned {len(scores)} scores for {len(texts)} texts")
        return scores

    def _scores(self, query: str, candidates: list[Candidate]) -> tuple[list[float], str]:
        """Scores from the cache where fresh; the rest in one call to the reranker."""
        keys = [ScoreCache.key(query, c.record.text) for c in candidates]
        known = {k: s for k in keys if (s := self.cache.get(k)) is not None}
        todo = {k: c.record.text for k, c in zip(keys, candidates, strict=True) if k not in known}
        if todo:
            for k, s in zip(todo, self._call(query, list(todo.values())), strict=True):
                self.cache.put(k, s)
                known[k] = s
        hits = sum(1 for k in keys if k not in todo)
        return [known[k] for k in keys], f"{hits} cached, {len(candidates) - hits} scored"

    def __call__(self, query: str, candidates: list[Candidate]) -> RerankOutcome:
        if not candidates:
            return RerankOutcome(candidates, "nothing to rerank")
        try:
            scores, how = self._scores(query, candidates)
        except FutureTimeout:
            return RerankOutcome(candidates, f"timeout after {self.timeout_ms:g} ms: order kept")
        except Busy:
            return RerankOutcome(candidates, "busy (earlier calls still running): order kept")
        except Exception as exc:
            return RerankOutcome(candidates, f"failed ({type(exc).__name__}): order kept")
        out = [
            replace(c, rerank=s, score=(1 - self.weight) * c.score + self.weight * s)
            for c, s in zip(candidates, scores, strict=True)
        ]
        return RerankOutcome(out, f"reranked, weight {self.weight:g} ({how})")

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
