"""What the HTTP API needs from its process, passed in by the bootstrap.

The API lives in the read model, which never imports the worker or Celery: it
publishes through the `Publisher` port and the bootstrap supplies the Celery-backed
implementation.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import SecretStr

from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from readmodel.metrics import Metrics, NoopMetrics
from readmodel.recall.service import RecallService
from readmodel.recall_logs import RecallLog
from readmodel.store import MemoryStore


class PublishError(Exception):
    """The broker did not take the events; the caller may retry the same request."""


class Publisher(Protocol):
    def publish_retain(self, events: Sequence[RetainEvent]) -> None:
        """Queue retain events for consolidation; raises `PublishError` on failure."""

    def publish_feedback(self, events: Sequence[FeedbackEvent]) -> None:
        """Queue feedback events; raises `PublishError` on failure."""

    def broker_ok(self) -> bool: ...


HealthCheck = Callable[[], bool]


@dataclass(frozen=True)
class ApiDeps:
    """`health` maps a component name (store, redis, broker) to a check that may raise.
    `metrics` and `recall_log` feed /v1/stats, /metrics and the dashboard; with
    `metrics_public` false, /metrics needs the token too."""

    service: RecallService
    store: MemoryStore
    publisher: Publisher
    max_text_bytes: int
    max_body_bytes: int
    api_token: SecretStr | None = None
    health: Mapping[str, HealthCheck] = field(default_factory=dict)
    metrics: Metrics = field(default_factory=NoopMetrics)
    recall_log: RecallLog | None = None
    metrics_public: bool = True
