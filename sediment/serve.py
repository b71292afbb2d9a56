"""`sediment serve`: the HTTP API, and in embedded and standalone modes the workers too.

A local store admits one process, so where the store is local the API process must
also be the one that consolidates: it runs a Celery worker (solo pool, or threads
when SEDIMENT_WORKER_CONCURRENCY > 1) in a daemon thread, consuming the same queue
and the same versioned tasks as `sediment worker` does (from Redis in standalone
mode, from Celery's in-memory transport in embedded mode). In distributed mode
workers are separate processes and `serve` runs the API alone. In every mode a
`GaugeSampler` keeps queue depth, dead letters and store sizes fresh in the metrics.

Logging goes through structlog (sediment/logs.py): uvicorn's own logger is left to
it, and its access log is off because the API logs one `request` line per request
with its request id.
"""

import asyncio
import os
import signal
import socket
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
import uvicorn
from fastapi import FastAPI

from readmodel.api.app import create_app
from sediment.bootstrap import Runtime
from sediment.ops import sweep_loop
from sediment.sampler import GaugeSampler

log = structlog.get_logger("sediment.serve")

STOP_WAIT_S = 30.0


class InProcessWorker:
    """A Celery `WorkController` in a thread: no signal handlers, no banner, no pidfile;
    the server's shutdown stops it (warm: the task in hand finishes and is acknowledged).
    If it dies on its own, the process shuts down rather than serve without consuming."""

    def __init__(self, rt: Runtime) -> None:
        s = rt.settings
        self._controller = rt.celery.WorkController(
            app=rt.celery,
            hostname=f"serve-{os.getpid()}@{socket.gethostname()}",
            pool_cls="threads" if s.worker_concurrency > 1 else "solo",
            concurrency=s.worker_concurrency,
            queues=[s.queue],
            without_gossip=True,
            without_mingle=True,
            without_heartbeat=True,
            loglevel=s.log_level,
        )
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sediment-worker", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        self._controller.start()
        if not self._stopping.is_set():
            log.error("worker_exited", reason="the in-process worker stopped; shutting down")
            os.kill(os.getpid(), signal.SIGTERM)

    def stop(self) -> None:
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._controller.stop()
        self._thread.join(STOP_WAIT_S)
        if self._thread.is_alive():
            log.warning("worker_still_running", waited_s=STOP_WAIT_S)


class Hosted:
    """What runs beside the API and must stop before the store closes."""

    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._stopped = False
        self.worker: InProcessWorker | None = None
        self.sampler: GaugeSampler | None = None
        self.sweep = None
        if rt.settings.mode != "distributed":
            _ = rt.worker_deps
            self.worker = InProcessWorker(rt)
            self.sweep = sweep_loop(rt)

    @asynccontextmanager
    async def lifespan(self, _: FastAPI) -> AsyncIterator[None]:
        s = self._rt.settings
        if s.metrics_enabled and s.metrics_sample_s > 0:
            self.sampler = GaugeSampler(self._rt, s.metrics_sample_s, sizes=True)
        if self.worker is not None:
            self.worker.start()
        if self.sampler is not None:
            self.sampler.start()
        if self.sweep is not None:
            self.sweep.start()
        log.info("serving", mode=self._rt.settings.mode, workers=self.worker is not None)
        try:
            yield
        finally:
            await asyncio.to_thread(self.stop)

    def stop(self) -> None:
        """Idempotent: stop the sampler and the worker, write pending recall logs, close
        the store."""
        if self._stopped:
            return
        self._stopped = True
        if self.sampler is not None:
            self.sampler.stop()
        if self.sweep is not None:
            self.sweep.stop()
        if self.worker is not None:
            self.worker.stop()
        self._rt.close()
        log.info("stopped")


def serve(rt: Runtime, host: str, port: int) -> None:
    """Serve until SIGINT or SIGTERM. Shutdown runs in the app's lifespan, because
    uvicorn re-raises the signal once it is done. Dependencies are built before any
    thread starts: cached properties are not thread-safe, and two threads opening the
    local store at once would fail."""
    hosted = Hosted(rt)
    app = create_app(rt.api_deps, lifespan=hosted.lifespan)
    try:
        config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False)
        uvicorn.Server(config).run()
    finally:
        hosted.stop()
