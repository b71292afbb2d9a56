"""The recall service: the pipeline on the hot path, its bookkeeping off it.

Callers get their response as soon as ranking is done; the last-access update, the
impression, the per-session snapshot, the slow-call entry and the recall's metrics
(count, errors, latency, stage latencies and its store-call timings) are written by
one background thread afterwards. A failure there is logged (metadata only) and never
reaches the caller: logs must not make recall less available than the store.

That thread takes what recalls left it at most every `COALESCE_S` (sooner when a
caller waits for it): the logs of each recall in order, then one last-access update
per bank (the window's ids, at its latest recall's time) and the metrics of the
whole window in one pipeline. Metrics are still sent after the logs of every recall
they count. The same writes, fewer of them: sending each recall's metrics on its own
took about as much interpreter time as ranking it, time the next recall waited for.
"""

import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Final, Protocol

import structlog

from contracts.feedback import FeedbackEvent
from contracts.recall import RecallRequest, RecallResponse
from readmodel.store import MemoryStore
from telemetry.background import Background, guarded
from telemetry.metrics import Metrics, NoopMetrics, merged, record_recall
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
from telemetry.tracing import (
    NOOP_TRACER,
    OPERATION,
    PROVIDER,
    PROVIDER_NAME,
    RECORD_COUNT,
    SEARCH_MEMORY,
    STORE_ID,
    Attributes,
    Tracer,
)

FEEDBACK_NAMESPACE: Final = uuid.UUID("2b0e6f55-7d1c-5f3a-8f0e-4d5c1e9a7b21")
MAX_PENDING: Final = 10_000
READ_YOUR_WRITES_WAIT_S: Final = 2.0
COALESCE_S: Final = 0.05
"""How long the effects thread lets recalls' writes gather before it sends them."""

log = structlog.get_logger("sediment.recall")


@dataclass(frozen=True)
class _Recalled:
    request: RecallRequest
    impression: Impression
    response: RecallResponse


_Due = _Recalled | Callable[[], None]
"""A recall's logs to write, or a batch of metrics to send."""


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
        tracer: Tracer = NOOP_TRACER,
    ) -> None:
        self._recaller = recaller
        self._tracer = tracer
        self._metrics = metrics or NoopMetrics()
        self._store = store
        self._log = recall_log
        self._slow_ms = slow_ms
        self._clock = clock or partial(datetime.now, UTC)
        self._background = Background("recall-effects", MAX_PENDING)
        self._due: list[_Due] = []
        self._due_lock = threading.Lock()
        self._drain_queued = False
        self._hurry = threading.Event()
        self._slow = SlowCalls(recall_log, slow_ms, self._clock)
        self._deployment = dict(recaller.ranking_settings())

    def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        """One `search_memory {bank}` span (the GenAI memory operation), the pipeline's
        stages and store calls its children."""
        if not self._tracer.enabled:
            return self._recall(bank_id, request)
        attributes: Attributes = {
            OPERATION: SEARCH_MEMORY,
            PROVIDER: PROVIDER_NAME,
            STORE_ID: bank_id,
            "sediment.limit": request.limit,
            "sediment.history": request.history,
        }
        with self._tracer.span(f"{SEARCH_MEMORY} {bank_id}", attributes) as span:
            response = self._recall(bank_id, request)
            span.set_attributes({RECORD_COUNT: len(response.results)})
        return response

    def _recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
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
            self._later(_Recalled(request, impression, response))
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
        self._hurry.set()
        return self._background.flush(timeout) and self._slow.flush(timeout)

    def close(self) -> None:
        self._background.close()
        self._slow.close()

    def _later(self, due: _Due) -> None:
        """Leave `due` for the effects thread; past MAX_PENDING, drop it and say so."""
        with self._due_lock:
            if len(self._due) >= MAX_PENDING:
                log.warning("background_effect_dropped", effect="recall", reason="backlog")
                return
            self._due.append(due)
            if self._drain_queued:
                return
            self._drain_queued = True
        self._background.submit("recall", None, partial(self._drain, time.monotonic()))

    def _drain(self, first_at: float) -> None:
        self._hurry.wait(max(0.0, first_at + COALESCE_S - time.monotonic()))
        with self._due_lock:
            due, self._due = self._due, []
            self._drain_queued = False
            self._hurry.clear()
        touched: dict[str, tuple[dict[uuid.UUID, None], datetime]] = {}
        flushes: list[Callable[[], None]] = []
        for item in due:
            if not isinstance(item, _Recalled):
                flushes.append(item)
                continue
            self._after_recall(item.request, item.impression, item.response)
            bank, at = item.impression.bank_id, item.impression.at
            ids, latest = touched.get(bank, ({}, at))
            ids.update(dict.fromkeys(r.id for r in item.response.results))
            touched[bank] = (ids, max(latest, at))
        for bank, (ids, at) in touched.items():
            if ids:
                guarded("touch", bank, partial(self._store.touch, bank, list(ids), at))
        for flush in merged(flushes):
            guarded("metrics", None, flush)

    def _after_recall(
        self, request: RecallRequest, impression: Impression, response: RecallResponse
    ) -> None:
        bank = impression.bank_id
        ids = [r.id for r in response.results]
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
        self._later(flush)
