"""The recall service: the pipeline on the hot path, its bookkeeping off it.

Callers get their response as soon as ranking is done; the last-access update, the
impression, the per-session snapshot, the slow-call entry and the recall's metrics
(count, errors, latency, stage latencies and its store-call timings, one pipeline)
are written by one background thread afterwards. A failure there is logged (metadata
only) and never reaches the caller: logs must not make recall less available than the
store.
"""

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Final, Protocol

from contracts.feedback import FeedbackEvent
from contracts.recall import RecallRequest, RecallResponse
from readmodel.store import MemoryStore
from telemetry.background import Background, guarded
from telemetry.metrics import Metrics, NoopMetrics, record_recall
from telemetry.recall_logs import (
    Impression,
    LastRecall,
    RecallLog,
    Setting,
    SlowCall,
    impression_of,
    last_recall_of,
)
from telemetry.slow_calls import SlowCalls

FEEDBACK_NAMESPACE: Final = uuid.UUID("2b0e6f55-7d1c-5f3a-8f0e-4d5c1e9a7b21")
MAX_PENDING: Final = 10_000
READ_YOUR_WRITES_WAIT_S: Final = 2.0


class RecallStages(Protocol):
    def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse: ...

    def ranking_settings(self) -> Mapping[str, Setting]:
        """The deployment's settings that change ranking, recorded with each impression."""


def mark_event_id(bank_id: str, snapshot: LastRecall, memory_id: uuid.UUID) -> uuid.UUID:
    """One id per (bank, session, recall, memory): marking the same recall twice counts once."""
    at = snapshot.at.isoformat()
    return uuid.uuid5(
        FEEDBACK_NAMESPACE, f"{bank_id}\x1f{snapshot.session_key}\x1f{at}\x1f{memory_id}"
    )


class Recaller:
    """Wired once per process; `recall` is safe to call from many threads."""

    def __init__(
        self,
        recaller: RecallStages,
        store: MemoryStore,
        recall_log: RecallLog,
        slow_ms: float,
        clock: Callable[[], datetime] | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._recaller = recaller
        self._metrics = metrics or NoopMetrics()
        self._store = store
        self._log = recall_log
        self._slow_ms = slow_ms
        self._clock = clock or partial(datetime.now, UTC)
        self._background = Background("recall-effects", MAX_PENDING)
        self._slow = SlowCalls(recall_log, slow_ms, self._clock)
        self._deployment = dict(recaller.ranking_settings())

    def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        """A failed recall is counted (and re-raised); its metrics, like a good one's,
        are sent by the background thread, never on the caller's time, and after the
        recall's other effects: a reader who sees the recall counted sees its logs."""
        start = time.perf_counter()
        with self._metrics.batch(defer=self._defer_metrics):
            try:
                response = self._recaller.recall(bank_id, request)
            except Exception:
                elapsed_ms = (time.perf_counter() - start) * 1000
                record_recall(self._metrics, bank_id, {}, elapsed_ms, error=True)
                raise
            duration_ms = (time.perf_counter() - start) * 1000
            record_recall(self._metrics, bank_id, response.timings_ms, duration_ms, error=False)
            impression = impression_of(
                bank_id, request, response, duration_ms, self._clock(), self._deployment
            )
            effects = partial(self._after_recall, request, impression, response)
            self._background.submit("recall", bank_id, effects)
        return response

    @property
    def slow_calls(self) -> SlowCalls:
        """The slow-call log, written in order with this recaller's impressions; callers
        time their own operations (a publish, a store call) through it."""
        return self._slow

    def last_recall(self, bank_id: str, session_key: str) -> LastRecall | None:
        """The session's last recall; waits briefly for this process's pending writes."""
        self.flush(READ_YOUR_WRITES_WAIT_S)
        return self._log.last(bank_id, session_key)

    def mark_last_recall(
        self, bank_id: str, session_key: str, useful_ids: Sequence[uuid.UUID]
    ) -> list[FeedbackEvent]:
        """Votes marking as not useful every result of the session's last recall except
        `useful_ids`. Nothing is marked without at least one useful id that was shown:
        an empty or unrelated list must never condemn a whole recall."""
        if not useful_ids:
            return []
        snapshot = self.last_recall(bank_id, session_key)
        if snapshot is None:
            return []
        useful = set(useful_ids)
        shown_ids = [r.id for r in snapshot.results]
        if not useful & set(shown_ids):
            return []
        now = self._clock()
        return [
            FeedbackEvent(
                event_id=mark_event_id(bank_id, snapshot, memory_id),
                bank_id=bank_id,
                memory_id=memory_id,
                vote="not_useful",
                occurred_at=now,
                session_key=session_key,
            )
            for memory_id in shown_ids
            if memory_id not in useful
        ]

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every side effect scheduled so far is done; False on timeout."""
        return self._background.flush(timeout) and self._slow.flush(timeout)

    def close(self) -> None:
        self._background.close()
        self._slow.close()

    def _after_recall(
        self, request: RecallRequest, impression: Impression, response: RecallResponse
    ) -> None:
        bank = impression.bank_id
        ids = [r.id for r in response.results]
        guarded("touch", bank, partial(self._store.touch, bank, ids, impression.at))
        guarded("impression", bank, partial(self._log.add_impression, impression))
        snapshot = last_recall_of(impression)
        if snapshot is not None:
            guarded("last_recall", bank, partial(self._log.save_last, snapshot))
        if impression.duration_ms > self._slow_ms:
            sizes = {"results": len(ids), "limit": request.limit}
            if response.explain:
                sizes["candidates"] = max(s.candidates for s in response.explain)
            call = SlowCall(
                impression.at, "recall", impression.duration_ms, bank, impression.timings_ms, sizes
            )
            guarded("slow", bank, partial(self._log.add_slow, call))

    def _defer_metrics(self, flush: Callable[[], None]) -> None:
        self._background.submit("metrics", None, flush)
