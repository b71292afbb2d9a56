"""Wires every dependency of a process from its `Settings`, once, at start."""

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import fakeredis
import redis
from celery import Celery

from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from readmodel.api.deps import ApiDeps, PublishError
from readmodel.embedders import Embedder
from readmodel.embedders.factory import make_embedder
from readmodel.metrics import Metrics, NoopMetrics
from readmodel.metrics_redis import RedisMetrics
from readmodel.recall.pipeline import Recall
from readmodel.recall.rerank import EmbeddingReranker, RerankStage
from readmodel.recall.service import RecallService
from readmodel.recall_logs import RecallLog, RedisRecallLog
from readmodel.slow_calls import SlowCalls
from readmodel.store import MemoryStore
from readmodel.stores.metered import MeteredStore
from sediment.settings import Settings
from sediment.slow_tasks import watch_slow_tasks
from worker.celery_app import CeleryConfig, make_app
from worker.consolidation.service import Consolidator
from worker.deadletters import DeadLetters, FileDeadLetters, RedisDeadLetters
from worker.feedback import FeedbackDeps
from worker.ledger import Ledger
from worker.locks import RedisLocks
from worker.publish import publish, publish_feedback
from worker.sweeper import Sweeper, make_sweeper
from worker.tasks import WorkerDeps, register_tasks

RETAIN_BATCH_SIZE = 64
MEMORY_POLL_S = 0.05
"""Celery's in-memory transport polls; `sediment serve` in embedded mode should not wait
a second (the default) for each event it published itself."""


def make_store(settings: Settings) -> MemoryStore:
    if settings.mode == "distributed" or settings.qdrant_url:
        from readmodel.stores.qdrant import QdrantStore

        if not settings.qdrant_url:
            raise ValueError("SEDIMENT_QDRANT_URL is required when SEDIMENT_MODE=distributed")
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantStore(url=settings.qdrant_url, api_key=key, collection=settings.collection)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    if settings.store == "qdrant-local":
        from readmodel.stores.qdrant import QdrantStore

        return QdrantStore(path=str(settings.data_dir / "qdrant"), collection=settings.collection)
    from readmodel.stores.edge import EdgeStore

    return EdgeStore(settings.data_dir / "store")


class SerialEmbedder:
    """One embedding at a time per process. The Hugging Face fast tokenizers behind the
    static and minilm embedders raise "Already borrowed" when two threads encode at
    once, and `sediment serve` embeds on API threads and worker threads together."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        with self._lock:
            return self._inner.embed(texts)


class CeleryPublisher:
    """The API's `Publisher`: the same task messages any Celery producer sends, each
    event recorded in the redelivery ledger first."""

    def __init__(self, app: Celery, queue: str, ledger: Ledger | None = None) -> None:
        self._app = app
        self._queue = queue
        self._ledger = ledger

    def publish_retain(self, events: Sequence[RetainEvent]) -> None:
        try:
            publish(self._app, events, self._queue, RETAIN_BATCH_SIZE, self._ledger)
        except Exception as exc:
            raise PublishError(type(exc).__name__) from exc

    def publish_feedback(self, events: Sequence[FeedbackEvent]) -> None:
        try:
            publish_feedback(self._app, events, self._queue, self._ledger)
        except Exception as exc:
            raise PublishError(type(exc).__name__) from exc

    def broker_ok(self) -> bool:
        with self._app.connection_for_write() as conn:
            conn.connect()
        return True


@dataclass
class Runtime:
    """The process's dependencies; heavy ones are built on first use."""

    settings: Settings
    _closed: bool = field(default=False, init=False)

    @cached_property
    def embedder(self) -> Embedder:
        return SerialEmbedder(
            make_embedder(self.settings.embedder, self.settings.static_model_path)
        )

    @cached_property
    def store(self) -> MemoryStore:
        store = make_store(self.settings)
        store.ensure_schema(self.embedder.dimension)
        return MeteredStore(store, self.metrics, slow=self.slow_calls)

    @cached_property
    def metrics(self) -> Metrics:
        """In Redis (fakeredis in embedded mode), so every process reads the same numbers."""
        if not self.settings.metrics_enabled:
            return NoopMetrics()
        return RedisMetrics(self.redis, self.settings.metrics_retention_s)

    @cached_property
    def redis(self) -> redis.Redis:
        if self.settings.mode == "embedded":
            return fakeredis.FakeRedis()
        return redis.Redis.from_url(
            self.settings.redis_url,
            socket_timeout=10,
            socket_connect_timeout=5,
            health_check_interval=30,
        )

    @cached_property
    def dead_letters(self) -> DeadLetters:
        if self.settings.mode == "embedded":
            return FileDeadLetters(self.settings.data_dir / "dlq.jsonl", self.settings.dlq_maxlen)
        return RedisDeadLetters(self.redis, self.settings.dlq_maxlen)

    @cached_property
    def consolidator(self) -> Consolidator:
        locks = RedisLocks(self.redis, self.settings.lock_timeout_s, self.settings.lock_wait_s)
        return Consolidator(
            self.store, self.embedder, locks, self.settings.policy(), metrics=self.metrics
        )

    @cached_property
    def recall(self) -> Recall:
        return Recall(self.store, self.embedder, self.settings.recall_config(), self.reranker)

    @cached_property
    def reranker(self) -> RerankStage | None:
        """`SEDIMENT_RECALL_RERANKER`: off, or MiniLM's cosine over the top candidates
        (the process's own embedder when it is MiniLM already)."""
        cfg, s = self.settings.recall_config(), self.settings
        if s.recall_reranker == "off":
            return None
        model = self.embedder if s.embedder == "minilm" else SerialEmbedder(make_embedder("minilm"))
        return RerankStage(
            EmbeddingReranker(model),
            cfg.rerank_timeout_ms,
            cfg.rerank_cache_ttl_s,
            cache_size=cfg.rerank_cache_size,
        )

    @cached_property
    def slow_calls(self) -> SlowCalls:
        """Store calls and retain handling slower than `SEDIMENT_RECALL_SLOW_MS`."""
        return SlowCalls(self.recall_log, self.settings.recall_slow_ms)

    @cached_property
    def worker_deps(self) -> WorkerDeps:
        s = self.settings
        feedback = FeedbackDeps(self.store, self.consolidator.locks, self.redis)
        return WorkerDeps(
            self.consolidator,
            self.dead_letters,
            s.max_text_bytes,
            s.retry_max,
            s.retry_backoff_max_s,
            feedback,
            metrics=self.metrics,
            ledger=self.ledger,
        )

    @cached_property
    def ledger(self) -> Ledger | None:
        """Beside the broker's queues; none in embedded mode (the in-memory queue dies
        with its process, so nothing could be redelivered)."""
        return None if self.settings.mode == "embedded" else Ledger(self.redis)

    @cached_property
    def sweeper(self) -> Sweeper | None:
        s = self.settings
        if self.ledger is None:
            return None
        return make_sweeper(
            self.celery,
            self.ledger,
            self.dead_letters,
            s.ledger_grace_s,
            s.ledger_max_republish,
            queues=[s.queue],
        )

    @cached_property
    def celery(self) -> Celery:
        s = self.settings
        broker = "memory://" if s.mode == "embedded" else s.redis_url
        app = make_app(
            CeleryConfig(
                broker,
                s.queue,
                s.task_soft_time_limit_s,
                s.task_time_limit_s,
                s.visibility_timeout_s,
                s.worker_concurrency,
            )
        )
        if s.mode == "embedded":
            options = dict(app.conf.broker_transport_options or {})
            app.conf.broker_transport_options = {**options, "polling_interval": MEMORY_POLL_S}
        register_tasks(app, lambda: self.worker_deps)
        watch_slow_tasks(self.slow_calls)
        return app

    @cached_property
    def recall_log(self) -> RecallLog:
        s = self.settings
        return RedisRecallLog(self.redis, s.impressions_maxlen, s.slow_maxlen, s.last_recall_ttl_s)

    @cached_property
    def recall_service(self) -> RecallService:
        return RecallService(
            self.recall,
            self.store,
            self.recall_log,
            self.settings.recall_slow_ms,
            metrics=self.metrics,
        )

    @cached_property
    def publisher(self) -> CeleryPublisher:
        return CeleryPublisher(self.celery, self.settings.queue, self.ledger)

    @cached_property
    def api_deps(self) -> ApiDeps:
        s = self.settings
        return ApiDeps(
            service=self.recall_service,
            store=self.store,
            publisher=self.publisher,
            max_text_bytes=s.max_text_bytes,
            max_body_bytes=s.api_max_body_bytes,
            api_token=s.api_token,
            health={
                "store": lambda: self.store.info() is not None,
                "redis": lambda: bool(self.redis.ping()),
                "broker": self.publisher.broker_ok,
            },
            metrics=self.metrics,
            recall_log=self.recall_log,
            metrics_public=s.metrics_public,
        )

    def close(self) -> None:
        """Pending recall side effects are written before the store closes."""
        if not self._closed and "recall_service" in self.__dict__:
            self.recall_service.close()
        if not self._closed and self.__dict__.get("reranker") is not None:
            self.__dict__["reranker"].close()
        if not self._closed and "slow_calls" in self.__dict__:
            self.slow_calls.close()
        if not self._closed and "store" in self.__dict__:
            self.store.close()
        self._closed = True


def bootstrap(settings: Settings | None = None) -> Runtime:
    return Runtime(settings or Settings())
