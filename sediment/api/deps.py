"""What the HTTP API needs from its process, passed in by the bootstrap.

Retains and feedback go through the process's `Publisher` (sediment/retain.py), the
one retain path, chosen by the bootstrap.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pydantic import SecretStr

from contracts.recall import RecallRequest, RecallResponse
from readmodel.recall.recaller import Recaller
from readmodel.store import MemoryStore
from sediment.api.keys import ApiKey
from sediment.auditing import Auditor
from sediment.pending import PendingWrites, recall_with_pending
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
    audit and export routes (absent: 404)."""

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

    def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        """Recall as every surface answers it: after the request's `wait_for` events,
        with what is still pending (sediment/pending.py)."""
        return recall_with_pending(self.service.recall, self.pending, bank_id, request)

    @property
    def metrics_open(self) -> bool:
        """/metrics answers without a key: as `metrics_public` says when it is set
        (SEDIMENT_METRICS_PUBLIC), else only while the API itself is open (neither a
        token nor keys configured), so per-bank series are never shown to a caller the
        API would not let in."""
        if self.metrics_public is not None:
            return self.metrics_public
        return self.api_token is None and not self.api_keys
