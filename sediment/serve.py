"""`sediment serve`: the HTTP API and the MCP endpoint (/mcp), and in embedded and
standalone modes the workers too.

A local store admits one process, so where the store is local the API process must
also be the one that consolidates: it runs a Celery worker (solo pool, or threads
when SEDIMENT_WORKER_CONCURRENCY > 1) in a daemon thread, consuming the same queue
and the same versioned tasks as `sediment worker` does (from Redis in standalone
mode, from Celery's in-memory transport in embedded mode). In distributed mode
workers are separate processes and `serve` runs the API alone. Where serve hosts the
worker, at most SEDIMENT_SERVE_RECALL_SLOTS recalls run at once, over HTTP and MCP
alike (`RecallGate`, in the API's deps), so recall load cannot starve consolidation of
the interpreter lock; a recall waiting for its `wait_for` events holds no slot
(sediment/recall_waits.py). In every mode a
`GaugeSampler` keeps queue depth, dead letters and store sizes fresh in the metrics.

Logging goes through structlog (sediment/logs.py): uvicorn's own logger is left to
it, and its access log is off because the API logs one `request` line per request
with its request id.
"""

import asyncio
import os
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace

import structlog
import uvicorn
from celery import Celery
from fastapi import FastAPI

from sediment import store_owner
from sediment.api.app import Endpoint, LazyEndpoint, create_app
from sediment.api.deps import ApiDeps
from sediment.bootstrap import Runtime
from sediment.recall_gate import RecallGate
from sediment.sampler import GaugeSampler
from worker.holders import Heartbeat
from worker.sweeper import SweepLoop

log = structlog.get_logger("sediment.serve")

STOP_WAIT_S = 30.0


class InProcessWorker:
    """A Celery `WorkController` in a thread: no signal handlers, no banner, no pidfile;
    the server's shutdown stops it (warm: the task in hand finishes and is acknowledged).
    If it dies on its own, the process shuts down rather than serve without consuming."""

    def __init__(self, celery: Celery, queue: str, concurrency: int, loglevel: str) -> None:
        # The pools run a message through Celery's tracer, which finds the task in the
        # process's current app; a bare WorkController (unlike `celery worker`) does
        # not make its app that, so a message would find no task registered.
        celery.set_default()
        celery.set_current()
        self._controller = celery.WorkController(
            app=celery,
            hostname=f"serve-{os.getpid()}@{socket.gethostname()}",
            pool_cls="threads" if concurrency > 1 else "solo",
            concurrency=concurrency,
            queues=[queue],
            without_gossip=True,
            without_mingle=True,
            without_heartbeat=True,
            loglevel=loglevel,
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
    """What runs beside the API and must stop before the store closes: the in-process
    worker with its heartbeat, the sweeps (ledger, expiry) and the gauge sampler;
    `close` writes pending recall logs and closes the store. The sampler is made when
    serving starts (it opens the store to count it)."""

    def __init__(
        self,
        worker: InProcessWorker | None,
        sweeps: Sequence[SweepLoop],
        make_sampler: Callable[[], GaugeSampler | None],
        close: Callable[[], None],
        heartbeat: Heartbeat | None = None,
    ) -> None:
        self.worker = worker
        self.sweeps = list(sweeps)
        self.heartbeat = heartbeat
        self.sampler: GaugeSampler | None = None
        self._make_sampler = make_sampler
        self._close = close
        self._stopped = False

    @asynccontextmanager
    async def lifespan(self, _: FastAPI) -> AsyncIterator[None]:
        self.sampler = self._make_sampler()
        if self.worker is not None:
            self.worker.start()
        if self.heartbeat is not None:
            self.heartbeat.start()
        if self.sampler is not None:
            self.sampler.start()
        for sweep in self.sweeps:
            sweep.start()
        log.info("serving", workers=self.worker is not None)
        try:
            yield
        finally:
            await asyncio.to_thread(self.stop)

    def stop(self) -> None:
        """Idempotent: stop the sampler and the worker, write pending recall logs, close
        the store. A step that fails is logged and the next still runs: a worker whose
        broker went away can fail to close its channel (kombu, while reconnecting), and
        the store must still be closed."""
        if self._stopped:
            return
        self._stopped = True
        steps: list[tuple[str, Callable[[], None]]] = []
        if self.sampler is not None:
            steps.append(("sampler", self.sampler.stop))
        steps += [("sweep", sweep.stop) for sweep in self.sweeps]
        if self.worker is not None:
            steps.append(("worker", self.worker.stop))
        if self.heartbeat is not None:
            steps.append(("heartbeat", self.heartbeat.stop))
        steps.append(("close", self._close))
        failed = []
        for name, step in steps:
            try:
                step()
            except Exception as exc:  # every step gets its turn
                failed.append(name)
                log.warning("stop_step_failed", step=name, error_class=type(exc).__name__)
        log.info("stopped", failed=failed)


HOSTED_SWITCH_INTERVAL_S = 0.0005
"""Where serve hosts the worker: how long a thread may keep the interpreter lock while
another waits for it (Python's default is 5 ms). The worker's thread waits on Redis
for every message it takes and acknowledges; each reply then waits for the lock held
by recall threads, up to the interval (py-spy: 38% of the worker's wall time idle in
its event loop while retains lagged by seconds)."""


def hosted_beside_api(rt: Runtime) -> Hosted:
    """Built here, on the main thread, before any of them starts."""
    s = rt.settings
    worker = None
    if rt.topology.serve_consumes:
        rt.check_layout()
        _ = rt.worker_deps
        worker = InProcessWorker(rt.celery, s.queue, s.worker_concurrency, s.log_level)

    def make_sampler() -> GaugeSampler | None:
        if not s.metrics_enabled or s.metrics_sample_s <= 0:
            return None
        return GaugeSampler(rt.gauges(store=True), rt.redis, s.metrics_sample_s)

    if worker is None:
        return Hosted(None, [], make_sampler, rt.close)
    return Hosted(worker, rt.sweep_loops(), make_sampler, rt.close, rt.heartbeat)


def mcp_endpoint(rt: Runtime, host: str, deps: ApiDeps | None = None) -> LazyEndpoint:
    """/mcp, with the MCP SDK imported on the first request (sediment/api/app.py), over
    the API's `deps`: its `recall` tool takes the same recall slots and counts among
    the same waiters as POST .../recall."""

    def build() -> Endpoint:
        from sediment.mcp_server import http_endpoint

        return http_endpoint(rt, host, deps)

    return LazyEndpoint(build)


def served_url(host: str, port: int) -> str:
    """The address a command on this host reaches the API at (`--url`)."""
    reach = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    reach = f"[{reach}]" if ":" in reach else reach
    return f"http://{reach}:{port}"


def serve(rt: Runtime, host: str, port: int) -> None:
    """Serve until SIGINT or SIGTERM. Shutdown runs in the app's lifespan, because
    uvicorn re-raises the signal once it is done. Dependencies are built before any
    thread starts: cached properties are not thread-safe, and two threads opening the
    local store at once would fail."""
    hosted = hosted_beside_api(rt)
    slots = rt.settings.serve_recall_slots
    deps = rt.api_deps
    if hosted.worker is not None and slots > 0:
        yield_s = rt.settings.serve_recall_yield_ms / 1000
        deps = replace(deps, recall_gate=RecallGate(slots, rt.consolidating, yield_s))
    app = create_app(deps, lifespan=hosted.lifespan, mcp=mcp_endpoint(rt, host, deps))
    if hosted.worker is not None:
        sys.setswitchinterval(HOSTED_SWITCH_INTERVAL_S)
    if rt.tracing is not None:
        rt.tracing.instrument_app(app)
    if rt.topology.local_store:
        store_owner.announce(rt.settings.data_dir, served_url(host, port))
    try:
        config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False)
        uvicorn.Server(config).run()
    finally:
        hosted.stop()
