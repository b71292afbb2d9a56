"""Gauges sampled on a timer, so the dashboard and /metrics stay fresh without anyone
running `sediment stats`.

Gauges are read (queue lengths, the dead-letter stream, store counts), never counted
on the hot path. Any number of processes may run a sampler: API replicas and workers
alike. Each part takes a Redis lease for the interval (`SET NX PX`), so one sample
per part per interval is taken across the deployment, however many run it:

    sediment:metrics:sampler:backlog   queue depth, unacked, dead letters
    sediment:metrics:sampler:sizes     memories and observations per bank

Workers sample the backlog only: counting the store is left to the process that
serves it (`sediment serve`), so a worker never opens the store from a second thread.
A failed sample is logged by class and retried at the next tick.
"""

import os
import socket
import threading
from collections.abc import Callable
from typing import Final

import redis
import structlog

from sediment.stats import Gauges, sample_backlog, sample_sizes
from telemetry.redis_series import PREFIX

LEASE_PREFIX: Final = PREFIX + "sampler:"
LEASE_SHARE: Final = 0.8
"""A lease lasts this share of the interval, so the next tick (of any process) can take it."""
STOP_WAIT_S: Final = 10.0

log = structlog.get_logger("sediment.sampler")


class GaugeSampler:
    """A daemon thread sampling every `interval_s` (the first sample at start).

    Its dependencies are built before it, on the caller's thread: cached properties
    are not thread-safe, and a local store admits one opener. `leases` is the Redis
    that holds the per-part leases (shared by every sampling process).
    """

    def __init__(self, gauges: Gauges, leases: redis.Redis, interval_s: float) -> None:
        self._gauges = gauges
        self._leases = leases
        self._interval_s = interval_s
        self._parts: dict[str, Callable[[Gauges], None]] = {"backlog": sample_backlog}
        if gauges.store is not None:
            self._parts["sizes"] = sample_sizes
        self._holder = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sediment-sampler", daemon=True)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> None:
        if self._interval_s > 0 and not self._thread.is_alive():
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(STOP_WAIT_S)

    def sample_once(self) -> list[str]:
        """Sample every part whose lease this process wins; returns the parts sampled."""
        done: list[str] = []
        for part, sample in self._parts.items():
            if not self._lease(part):
                continue
            try:
                with self._gauges.metrics.batch():
                    sample(self._gauges)
            except Exception as exc:
                log.warning("gauge_sample_failed", part=part, error_class=type(exc).__name__)
                continue
            done.append(part)
        return done

    def _lease(self, part: str) -> bool:
        ttl_ms = max(1, int(self._interval_s * 1000 * LEASE_SHARE))
        try:
            won = self._leases.set(LEASE_PREFIX + part, self._holder, nx=True, px=ttl_ms)
        except (redis.RedisError, OSError) as exc:
            log.warning("gauge_lease_failed", part=part, error_class=type(exc).__name__)
            return False
        return bool(won)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample_once()
            self._stop.wait(self._interval_s)


def attach_to_worker(gauges: Gauges, leases: redis.Redis, interval_s: float) -> GaugeSampler | None:
    """Sample the backlog from a `sediment worker` process: started once the worker is
    ready (after its pool has forked), stopped when it shuts down. None without a
    broker to read (Celery's in-memory transport) or with sampling off (interval 0)."""
    from celery.signals import worker_ready, worker_shutdown

    if gauges.broker is None or interval_s <= 0:
        return None
    sampler = GaugeSampler(gauges, leases, interval_s)
    worker_ready.connect(lambda **_: sampler.start(), weak=False)
    worker_shutdown.connect(lambda **_: sampler.stop(), weak=False)
    return sampler
