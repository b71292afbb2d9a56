"""What the HTTP API needs from its process, passed in by the bootstrap.

Retains and feedback go through the process's `Publisher` (sediment/retain.py), the
one retain path, chosen by the bootstrap.
"""

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio.to_thread
from pydantic import SecretStr

from contracts.recall import RecallRequest, RecallResponse
from readmodel.recall.recaller import Recaller
from readmodel.store import MemoryStore
from sediment.api.keys import ApiKey
from sediment.auditing import Auditor, current_actor
from sediment.pending import PendingWrites, with_pending
from sediment.recall_gate import RecallGate
from sediment.recall_waits import Waiters
from sediment.retain import Publisher
from telemetry.metrics import Metrics, NoopMetrics
from telemetry.recall_logs import RecallLog
from worker.tombstones import Tombstones

HealthCheck = Callable[[], bool]


@dataclass(frozen=True)
class ApiDeps:
    """`health` maps a component name (store, redis, broker) to a check that may raise.
    `metrics` and `recall_log` feed /v1/stats, /metrics and the dashboard; who may
    read /metrics is `metrics_open`. `auditor` (its log) and `tombstones` serve the
    audit and export routes (absent: 404). `recall_gate` (where serve hosts the
    worker) bounds the recalls computed at once; `waiters` bounds those waiting for
    their `wait_for` events (sediment/recall_waits.py)."""

    service: Recaller
    store: MemoryStore
    publisher: Publisher
    max_text_bytes: int
    max_body_bytes: int
    api_token: SecretStr | None = None
    health: Mapping[str, HealthCheck] = field(default_factory=dict)
    metrics: Metrics = field(default_factory=NoopMetrics)
    recall_log: RecallLog | None = None
    metrics_public: bool | None = None
    api_keys: tuple[ApiKey, ...] = ()
    auditor: Auditor | None = None
    tombstones: Tombstones | None = None
    pending: PendingWrites = field(default_factory=PendingWrites)
    recall_gate: RecallGate | None = None
    waiters: Waiters = field(default_factory=lambda: Waiters(per_key=8, per_bank=16))

    async def await_events(self, bank_id: str, request: RecallRequest) -> None:
        """The request's `wait_for` events, waited for in the event loop, counted among
        the caller's and the bank's waiters (`TooManyWaiters` past a bound), holding
        no recall slot."""
        if not request.wait_for or self.pending.ledger is None:
            return
        with self.waiters.admit(current_actor.get() or "local", bank_id):
            await self.pending.wait_async(bank_id, request.wait_for, request.wait_timeout_s)

    @asynccontextmanager
    async def recall_turn(self) -> AsyncIterator[None]:
        """A recall slot, where the gate is; at once elsewhere."""
        if self.recall_gate is None:
            yield
            return
        async with self.recall_gate.turn():
            yield

    def recall_now(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        """The recall over the read model as it is, with what is still pending."""
        return with_pending(self.service.recall(bank_id, request), self.pending, bank_id, request)

    async def recall_served(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        """A served recall (HTTP, MCP): wait for `wait_for` first, outside any slot; then
        take a slot and compute in a worker thread."""
        await self.await_events(bank_id, request)
        async with self.recall_turn():
            return await anyio.to_thread.run_sync(self.recall_now, bank_id, request)

    @property
    def metrics_open(self) -> bool:
        """/metrics answers without a key: as `metrics_public` says when it is set
        (SEDIMENT_METRICS_PUBLIC), else only while the API itself is open (neither a
        token nor keys configured), so per-bank series are never shown to a caller the
        API would not let in."""
        if self.metrics_public is not None:
            return self.metrics_public
        return self.api_token is None and not self.api_keys
