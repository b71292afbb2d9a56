"""Wires every dependency of a process from its `Settings`, once, at start."""

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path

import fakeredis
import redis
from celery import Celery

from readmodel.embedders import Embedder, Vectors
from readmodel.embedders.factory import make_embedder
from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.recaller import Recaller
from readmodel.recall.rerank import EmbeddingReranker, RerankStage
from readmodel.store import MemoryStore
from readmodel.stores.metered import MeteredStore
from readmodel.unavailable import StoreUnavailable
from sediment import store_owner
from sediment.api.deps import ApiDeps
from sediment.api.keys import load_keys
from sediment.auditing import AuditedPublisher, Auditor
from sediment.pending import PendingWrites
from sediment.recall_waits import Waiters
from sediment.retain import InlinePublisher, Publisher, QueuePublisher, TracedPublisher
from sediment.settings import Settings
from sediment.slow_tasks import watch_slow_tasks
from sediment.stats import Gauges
from sediment.store_owner import StoreOwnedError
from sediment.topology import MEMORY_BROKER, Topology
from sediment.tracing import Tracing, start_tracing, wanted
from telemetry import series_file
from telemetry.audit_log import AuditLog, FileAuditLog, RedisAuditLog
from telemetry.metrics import Metrics, NoopMetrics
from telemetry.recall_logs import RecallLog, RedisRecallLog
from telemetry.redis_series import ProcessMetrics, RedisMetrics
from telemetry.slow_calls import SlowCalls
from telemetry.tracing import NOOP_TRACER, Tracer
from worker.aof_rewrite import AofRewrites
from worker.batching import Batching
from worker.busy import Busy
from worker.celery_app import CeleryConfig, make_app
from worker.consolidation.consolidator import Consolidator
from worker.consolidation.layout import adopt_layout, check_layout
from worker.deadletters import DeadLetters, FileDeadLetters, RedisDeadLetters
from worker.expiry import ExpirySweep
from worker.feedback_handler import FeedbackDeps
from worker.forget_rules import NothingOwed
from worker.holders import Heartbeat
from worker.ledger import Ledger
from worker.locks import Locks, ProcessLocks, RedisLocks
from worker.rebuild import InterruptedRebuildError, check_rebuild
from worker.sweeper import Sweeper, SweepLoop, make_sweeper
from worker.tasks import WorkerDeps, register_tasks
from worker.tombstones import FileTombstones, RedisTombstones, Tombstones

IN_PROCESS_LOG_MAXLEN = 10_000
"""Where Redis is the in-process stand-in (embedded mode), the recall logs live in the
process's own memory, about 2 KB per impression: they are capped at this many entries
(or `SEDIMENT_IMPRESSIONS_MAXLEN` / `SEDIMENT_SLOW_MAXLEN` when smaller), so a long
embedded `sediment serve` stays flat instead of growing by ~200 MB to the default cap."""

METRICS_FILE = "metrics.json"
"""Embedded mode's metrics between processes (telemetry/series_file.py)."""

MEMORY_POLL_S = 0.05
"""Celery's in-memory transport polls; `sediment serve` in embedded mode should not wait
a second (the default) for each event it published itself."""


class NoDataDirError(RuntimeError):
    """A command that reads a local store was pointed at a directory that does not
    exist: it says where it looked instead of creating an empty store there."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        super().__init__(
            f"no data directory at {data_dir.absolute()}: set SEDIMENT_DATA_DIR to the "
            "directory your memories were stored in (or run from where it is), or store "
            "something first (sediment retain, sediment ingest, sediment serve)"
        )


def make_store(settings: Settings, *, create: bool = True) -> MemoryStore:
    """A Qdrant server's client, or the local store, taken for this process
    (sediment/store_owner.py; released by `Runtime.close`). Without `create`, a local
    data directory that does not exist is `NoDataDirError`, not a new empty store."""
    if not Topology.of(settings).local_store:
        from readmodel.stores.qdrant import QdrantStore

        if not settings.qdrant_url:
            raise ValueError("SEDIMENT_QDRANT_URL is required when SEDIMENT_MODE=distributed")
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantStore(url=settings.qdrant_url, api_key=key, collection=settings.collection)
    if not create and not settings.data_dir.is_dir():
        raise NoDataDirError(settings.data_dir)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store_owner.acquire(settings.data_dir)
    if settings.store == "qdrant-local":
        from readmodel.stores.qdrant import QdrantStore

        return QdrantStore(path=str(settings.data_dir / "qdrant"), collection=settings.collection)
    from readmodel.stores.edge import EdgeStore

    try:
        return EdgeStore(settings.data_dir / "store")
    except Exception as exc:
        if "WouldBlock" in str(exc):
            raise StoreOwnedError(settings.data_dir, None) from None
        raise


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

    def embed(self, texts: Sequence[str]) -> Vectors:
        with self._lock:
            return self._inner.embed(texts)


@dataclass
class Runtime:
    """The process's dependencies, wired once; heavy ones are built on first use.

    This is the composition root only: entry points (CLI commands, `serve`, the worker)
    take from it what a function uses and pass that, never the runtime itself.
    `hosts_worker`: this process consumes the queue itself (`sediment serve` where the
    store is local), so its retains go through the queue even in embedded mode.
    `actor`: who the audit names for changes made here outside an API request (whose
    caller is named instead). `traced`: tracing already started (tests); by default
    the settings decide (sediment/tracing.py). `creates_store`: a local data directory
    that does not exist yet is created (commands that store); otherwise it is
    `NoDataDirError`. `finishes_rebuild`: the store may record a rebuild cut short
    (`sediment rebuild` finishes it); any other process refuses such a store when it
    opens it (`InterruptedRebuildError`, worker/rebuild.py)."""

    settings: Settings
    hosts_worker: bool = False
    actor: str = "cli"
    traced: Tracing | None = None
    creates_store: bool = True
    finishes_rebuild: bool = False
    _closed: bool = field(default=False, init=False)

    @cached_property
    def tracing(self) -> Tracing | None:
        """Started once, before the process publishes or consumes anything (the entry
        points ask for it at start): `SEDIMENT_OTEL`, else an OTLP endpoint set."""
        if self.traced is not None:
            return self.traced
        if not wanted(self.settings.otel, os.environ):
            return None
        service = "serve" if self.hosts_worker else self.actor
        return start_tracing(service, os.environ, self.settings.otel_file)

    @cached_property
    def tracer(self) -> Tracer:
        return self.tracing.tracer if self.tracing is not None else NOOP_TRACER

    @cached_property
    def topology(self) -> Topology:
        return Topology.of(self.settings)

    @cached_property
    def embedder(self) -> Embedder:
        return SerialEmbedder(
            make_embedder(self.settings.embedder, self.settings.static_model_path)
        )

    @cached_property
    def store(self) -> MemoryStore:
        store = make_store(self.settings, create=self.creates_store)
        store.ensure_schema(self.embedder.dimension)
        adopt_layout(store)
        if not self.finishes_rebuild:
            try:
                check_rebuild(store, self._where)
            except InterruptedRebuildError:
                store.close()
                if self.topology.local_store:
                    store_owner.release(self.settings.data_dir)
                raise
        s = self.settings
        edge = self.topology.local_store and s.store != "qdrant-local"
        target = "edge" if edge else s.collection
        return MeteredStore(store, self.metrics, self.slow_calls, self.tracer, target)

    @cached_property
    def metrics(self) -> Metrics:
        """In Redis (fakeredis in embedded mode), so every process reads the same numbers."""
        if not self.settings.metrics_enabled:
            return NoopMetrics()
        if not self.topology.shared_redis:
            if self._keeps_metrics:
                series_file.load_file(self.redis, self.settings.data_dir / METRICS_FILE)
            return ProcessMetrics(self.redis, self.settings.metrics_retention_s)
        return RedisMetrics(self.redis, self.settings.metrics_retention_s)

    @property
    def _keeps_metrics(self) -> bool:
        """Embedded on a local store: the metrics outlive the process in a file of the
        data directory (telemetry/series_file.py), so `sediment stats` in the next
        process counts what this one did."""
        return (
            not self.topology.shared_redis
            and self.topology.local_store
            and self.settings.metrics_enabled
        )

    @cached_property
    def redis(self) -> redis.Redis:
        if not self.topology.shared_redis:
            return fakeredis.FakeRedis()
        return redis.Redis.from_url(
            self.settings.redis_url,
            socket_timeout=10,
            socket_connect_timeout=5,
            health_check_interval=30,
        )

    @cached_property
    def dead_letters(self) -> DeadLetters:
        s = self.settings
        if not self.topology.shared_redis:
            path = s.data_dir / "dlq.jsonl"
            return FileDeadLetters(path, s.dlq_maxlen, max_payload_bytes=s.dlq_max_payload_bytes)
        return RedisDeadLetters(self.redis, s.dlq_maxlen, max_payload_bytes=s.dlq_max_payload_bytes)

    @cached_property
    def locks(self) -> Locks:
        """Shared through Redis where several processes may consume; in-process otherwise."""
        s = self.settings
        if self.topology.shared_redis:
            return RedisLocks(self.redis, s.lock_timeout_s, s.lock_wait_s)
        return ProcessLocks(s.lock_wait_s)

    @cached_property
    def consolidator(self) -> Consolidator:
        """What is owed, for pruning forget rules, is the ledger's; with no ledger
        (embedded, consolidating as it publishes) nothing is (worker/forget_rules.py)."""
        return Consolidator(
            self.store,
            self.embedder,
            self.locks,
            self.settings.policy(),
            metrics=self.metrics,
            tombstones=self.tombstones,
            unsettled=self.ledger if self.ledger is not None else NothingOwed(),
        )

    @cached_property
    def tombstones(self) -> Tombstones:
        """Beside the shared Redis where several processes consume; a file in the data
        directory otherwise, so a later embedded command sees an earlier forget."""
        if self.topology.shared_redis:
            return RedisTombstones(self.redis)
        return FileTombstones(self.settings.data_dir / "tombstones.jsonl")

    @cached_property
    def recall_pipeline(self) -> RecallPipeline:
        return RecallPipeline(
            self.store,
            self.embedder,
            self.settings.recall_config(),
            self.reranker,
            tracer=self.tracer,
        )

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
    def feedback(self) -> FeedbackDeps:
        return FeedbackDeps(self.store, self.locks, self.redis, self.tombstones, self.metrics)

    @cached_property
    def worker_deps(self) -> WorkerDeps:
        s = self.settings
        return WorkerDeps(
            self.consolidator,
            self.dead_letters,
            s.max_text_bytes,
            s.retry_max,
            s.retry_backoff_max_s,
            self.feedback,
            metrics=self.metrics,
            ledger=self.ledger,
            aof_rewrites=self.aof_rewrites,
            tracer=self.tracer,
        )

    @cached_property
    def aof_rewrites(self) -> AofRewrites | None:
        """Redis's AOF rewritten after forgets, at most once per
        SEDIMENT_FORGET_AOF_REWRITE_S; none without a shared Redis or with 0."""
        interval = self.settings.forget_aof_rewrite_s
        if not self.topology.shared_redis or interval <= 0:
            return None
        return AofRewrites(self.redis, interval)

    @cached_property
    def ledger(self) -> Ledger | None:
        """Beside the broker's queues; in embedded mode only where this process hosts
        the worker (`sediment serve`), in its in-process Redis stand-in, to say what is
        pending (sediment/pending.py): the in-memory queue dies with its process, so
        nothing is ever redelivered from it (no sweeper)."""
        return Ledger(self.redis) if self.topology.shared_redis or self.hosts_worker else None

    @cached_property
    def pending(self) -> PendingWrites:
        """What recall does not reflect yet: the ledger's events, where there is one."""
        return PendingWrites(self.ledger)

    @cached_property
    def sweeper(self) -> Sweeper | None:
        s = self.settings
        if self.ledger is None or not self.topology.shared_redis:
            return None
        return make_sweeper(
            self.celery,
            self.ledger,
            self.dead_letters,
            s.ledger_grace_s,
            s.ledger_max_republish,
            queues=[s.queue],
            holder_ttl_s=s.holder_ttl_s,
        )

    @cached_property
    def heartbeat(self) -> Heartbeat | None:
        """What a consuming process holds, renewed while it lives (worker/holders.py);
        none without a shared broker or with SEDIMENT_HOLDER_TTL_S=0."""
        if not self.topology.shared_redis or self.settings.holder_ttl_s <= 0:
            return None
        return Heartbeat(self.redis, self.settings.holder_ttl_s)

    @property
    def _where(self) -> str:
        return self.settings.qdrant_url or str(self.settings.data_dir)

    def check_rebuild(self) -> None:
        """Raise `InterruptedRebuildError` if the store records a rebuild that has not
        finished (worker/rebuild.py); called by `sediment serve` at start. A Qdrant
        server that does not answer is left for the requests to report."""
        if self.finishes_rebuild:
            return
        if self.topology.local_store:
            _ = self.store
            return
        store = make_store(self.settings)
        try:
            store.ensure_schema(self.embedder.dimension)
            check_rebuild(store, self._where)
        except StoreUnavailable:
            return
        finally:
            store.close()

    def check_layout(self) -> None:
        """Raise `StaleLayoutError` unless the store follows this version's layout of
        derived fields (worker/consolidation/layout.py); called before a process starts
        consolidating. A Qdrant server is checked through a client of its own, so that
        none is open when a prefork pool forks."""
        where = self._where
        if self.topology.local_store:
            check_layout(self.store, where)
            return
        store = make_store(self.settings)
        try:
            store.ensure_schema(self.embedder.dimension)
            check_layout(store, where)
            if not self.finishes_rebuild:
                check_rebuild(store, where)
        finally:
            store.close()

    @cached_property
    def consolidating(self) -> Busy:
        """Marks the batches this process's worker runs (serve lets them go first)."""
        return Busy()

    @cached_property
    def celery(self) -> Celery:
        s = self.settings
        broker = self.topology.broker_url
        app = make_app(
            CeleryConfig(
                broker,
                s.queue,
                s.task_soft_time_limit_s,
                s.task_time_limit_s,
                s.visibility_timeout_s,
                s.worker_concurrency,
                prefetch=s.worker_batch_messages,
            )
        )
        if broker == MEMORY_BROKER:
            options = dict(app.conf.broker_transport_options or {})
            app.conf.broker_transport_options = {**options, "polling_interval": MEMORY_POLL_S}
        batching = Batching(
            s.worker_batch_messages,
            s.worker_batch_wait_ms / 1000,
            s.worker_batch_max_wait_ms / 1000,
        )
        register_tasks(app, lambda: self.worker_deps, batching, self.consolidating)
        watch_slow_tasks(self.slow_calls)
        return app

    @cached_property
    def recall_log(self) -> RecallLog:
        s = self.settings
        impressions, slow = s.impressions_maxlen, s.slow_maxlen
        if not self.topology.shared_redis:
            impressions = min(impressions, IN_PROCESS_LOG_MAXLEN)
            slow = min(slow, IN_PROCESS_LOG_MAXLEN)
        return RedisRecallLog(self.redis, impressions, slow, s.last_recall_ttl_s)

    @cached_property
    def recaller(self) -> Recaller:
        return Recaller(
            self.recall_pipeline,
            self.store,
            self.recall_log,
            self.settings.recall_slow_ms,
            metrics=self.metrics,
            tracer=self.tracer,
        )

    @cached_property
    def unaudited_publisher(self) -> Publisher:
        """The one retain path's destination: the queue where one is consumed (a shared
        broker, or this process's own worker), else consolidation right here."""
        if self.topology.shared_redis or self.hosts_worker:
            return self._traced(QueuePublisher(self.celery, self.settings.queue, self.ledger))
        self.check_layout()
        return self._traced(
            InlinePublisher(self.consolidator, self.feedback, dead_letters=self.dead_letters)
        )

    def _traced(self, publisher: Publisher) -> Publisher:
        return TracedPublisher(publisher, self.tracer) if self.tracer.enabled else publisher

    @cached_property
    def publisher(self) -> AuditedPublisher:
        """The one retain path, recording what it accepts in the audit streams."""
        return AuditedPublisher(self.unaudited_publisher, Auditor(self.audit_log, self.actor))

    @cached_property
    def audit_log(self) -> AuditLog:
        """Per-bank streams beside the shared Redis; a file in the data directory in
        embedded mode, so `sediment audit` in a later process sees it."""
        s = self.settings
        if self.topology.shared_redis:
            return RedisAuditLog(self.redis, s.audit_maxlen)
        return FileAuditLog(s.data_dir / "audit.jsonl", s.audit_maxlen)

    @cached_property
    def expiry_sweep(self) -> ExpirySweep:
        """Forgets expired memories through the one retain path, audited as `expire` by
        `worker`; one sweep at a time across the processes sharing Redis. A local store
        is this process's own (open it before the sweep's thread starts); a server gets
        a client of the sweep's own, made in its thread (never one shared across a
        prefork worker's fork)."""
        sweeper = Auditor(self.audit_log, "worker")
        send = AuditedPublisher(self.unaudited_publisher, sweeper).recording("expire")
        own = partial(make_store, self.settings)
        store = (lambda: self.store) if self.topology.local_store else own
        return ExpirySweep(store, send.publish_forget, self.redis)

    def sweep_loops(self, *, expiry: bool = True) -> list[SweepLoop]:
        """What a consuming process runs periodically: the ledger sweep
        (SEDIMENT_LEDGER_SWEEP_S), with `expiry` the expiry sweep
        (SEDIMENT_EXPIRY_SWEEP_S) and, where the store is local, the purge of what
        forgets deleted from its files (SEDIMENT_FORGET_PURGE_S), and the AOF rewrite a
        forget left owed (SEDIMENT_FORGET_AOF_REWRITE_S). `expiry` is false where this
        process does not hold the store (a prefork pool's children do)."""
        s, loops = self.settings, []
        if expiry and self.topology.local_store and s.forget_purge_s > 0:
            loops.append(
                SweepLoop(lambda: self.store.purge_now(), s.forget_purge_s, "sediment-purge")
            )
        if self.sweeper is not None and s.ledger_sweep_s > 0:
            loops.append(SweepLoop(self.sweeper.sweep, s.ledger_sweep_s))
        if expiry and s.expiry_sweep_s > 0:
            loops.append(SweepLoop(self.expiry_sweep.sweep, s.expiry_sweep_s, "sediment-expiry"))
        if self.aof_rewrites is not None:
            rewrites = self.aof_rewrites
            loops.append(SweepLoop(rewrites.run_owed, rewrites.sweep_every_s(), "sediment-aof"))
        return loops

    @cached_property
    def api_deps(self) -> ApiDeps:
        s = self.settings
        return ApiDeps(
            service=self.recaller,
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
            api_keys=load_keys(s.api_keys_file) if s.api_keys_file else (),
            auditor=self.publisher.auditor,
            tombstones=self.tombstones,
            pending=self.pending,
            waiters=Waiters(s.recall_waiters_per_key, s.recall_waiters_per_bank),
        )

    def gauges(self, *, store: bool) -> Gauges:
        """What gauge sampling reads; `store` only in the process that owns the store."""
        broker = self.redis if self.topology.shared_redis else None
        counted = self.store if store else None
        return Gauges(self.metrics, self.dead_letters, broker, self.settings.queue, counted)

    def close(self) -> None:
        """Pending recall side effects are written before the store closes."""
        if not self._closed and "recaller" in self.__dict__:
            self.recaller.close()
        if not self._closed and self.__dict__.get("reranker") is not None:
            self.__dict__["reranker"].close()
        if not self._closed and "slow_calls" in self.__dict__:
            self.slow_calls.close()
        if not self._closed and "store" in self.__dict__:
            if self._keeps_metrics and "metrics" in self.__dict__:
                series_file.save_file(self.redis, self.settings.data_dir / METRICS_FILE)
            self.store.close()
            if self.topology.local_store:
                store_owner.release(self.settings.data_dir)
        if not self._closed and self.traced is None and self.__dict__.get("tracing"):
            self.__dict__["tracing"].shutdown()
        self._closed = True


def bootstrap(
    settings: Settings | None = None,
    *,
    hosts_worker: bool = False,
    actor: str = "cli",
    traced: Tracing | None = None,
    creates_store: bool = True,
    finishes_rebuild: bool = False,
) -> Runtime:
    return Runtime(
        settings or Settings(), hosts_worker, actor, traced, creates_store, finishes_rebuild
    )
