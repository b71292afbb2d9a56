"""Wires every dependency of a process from its `Settings`, once, at start."""

from dataclasses import dataclass, field
from functools import cached_property

import fakeredis
import redis
from celery import Celery

from readmodel.embedders import Embedder
from readmodel.embedders.factory import make_embedder
from readmodel.recall.pipeline import Recall
from readmodel.store import MemoryStore
from sediment.settings import Settings
from worker.celery_app import CeleryConfig, make_app
from worker.consolidation.service import Consolidator
from worker.deadletters import DeadLetters, FileDeadLetters, RedisDeadLetters
from worker.feedback import FeedbackDeps
from worker.locks import RedisLocks
from worker.tasks import WorkerDeps, register_tasks


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


@dataclass
class Runtime:
    """The process's dependencies; heavy ones are built on first use."""

    settings: Settings
    _closed: bool = field(default=False, init=False)

    @cached_property
    def embedder(self) -> Embedder:
        return make_embedder(self.settings.embedder, self.settings.static_model_path)

    @cached_property
    def store(self) -> MemoryStore:
        store = make_store(self.settings)
        store.ensure_schema(self.embedder.dimension)
        return store

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
        return Consolidator(self.store, self.embedder, locks, self.settings.policy())

    @cached_property
    def recall(self) -> Recall:
        return Recall(self.store, self.embedder, self.settings.recall_config())

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
        register_tasks(app, lambda: self.worker_deps)
        return app

    def close(self) -> None:
        if not self._closed and "store" in self.__dict__:
            self.store.close()
        self._closed = True


def bootstrap(settings: Settings | None = None) -> Runtime:
    return Runtime(settings or Settings())
