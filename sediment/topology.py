"""What the run mode (`SEDIMENT_MODE`) means for a process, decided once at bootstrap.

Call sites ask what they need to know (is there a broker other processes reach? is the
store a local directory?), never which mode is set.
"""

from dataclasses import dataclass

from sediment.settings import Settings

MEMORY_BROKER = "memory://localhost/"
"""Celery's in-memory transport. The host is named: without one kombu logs "No hostname
was supplied" each time it connects, which is on every publish."""


@dataclass(frozen=True)
class Topology:
    """`shared_redis`: Redis is a real server (locks, metrics, logs, the ledger are shared
    between processes); false in embedded mode, where an in-process stand-in serves.
    `broker_url`: Celery's broker (Celery's in-memory transport when not shared).
    `local_store`: the store is a local directory, which admits one process.
    `serve_consumes`: `sediment serve` runs the workers itself (no separate workers)."""

    shared_redis: bool
    broker_url: str
    local_store: bool
    serve_consumes: bool

    @classmethod
    def of(cls, settings: Settings) -> "Topology":
        embedded = settings.mode == "embedded"
        distributed = settings.mode == "distributed"
        return cls(
            shared_redis=not embedded,
            broker_url=MEMORY_BROKER if embedded else settings.redis_url,
            local_store=not distributed and not settings.qdrant_url,
            serve_consumes=not distributed,
        )
