"""`Backlog`: whether the worker is behind its lag budget; `RecallSlots` holds new
recalls while it is (for a bounded time); retain tasks tell the backlog when they
start (with their publish time) and end, also when they fail."""

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest
from starlette.types import Receive, Scope, Send

from sediment.bootstrap import bootstrap
from sediment.serve import RecallSlots
from sediment.settings import Settings
from tests.unit.test_metrics_hooks import (
    Request,
    TaskDouble,
    deps,
    metrics,
    payload,
    store,
)
from worker.backlog import Backlog
from worker.celery_app import PUBLISHED_AT_HEADER
from worker.tasks import handle

__all__ = ["metrics", "store"]  # fixtures used below, shared with test_metrics_hooks


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_behind_while_a_late_retain_runs_and_briefly_after() -> None:
    clock = Clock()
    backlog = Backlog(0.25, idle_s=0.1, clock=clock)
    assert not backlog.behind()
    backlog.started(published_at=clock.now - 0.1)  # within budget
    assert not backlog.behind()
    backlog.finished()
    backlog.started(published_at=clock.now - 2.0)  # waited 2 s in the queue
    assert backlog.behind()
    clock.now += 5.0  # a long batch: still behind while it runs
    assert backlog.behind()
    backlog.finished()
    clock.now += 0.05  # between two messages of a backlog
    assert backlog.behind()
    clock.now += 0.1  # nothing started since: the queue is empty
    assert not backlog.behind()


def test_a_prompt_retain_ends_being_behind_and_no_publish_time_says_nothing() -> None:
    clock = Clock()
    backlog = Backlog(0.25, clock=clock)
    backlog.started(published_at=clock.now - 3.0)
    backlog.finished()
    backlog.started(published_at=None)
    assert backlog.behind()
    backlog.finished()
    backlog.started(published_at=clock.now - 0.01)
    assert not backlog.behind()


def test_the_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="budget_s"):
        Backlog(0)


class Recorder:
    def __init__(self) -> None:
        self.started_at: list[float] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.started_at.append(time.perf_counter())


def recall_scope() -> Scope:
    return {"type": "http", "method": "POST", "path": "/v1/banks/b/recall"}


async def _nothing() -> dict[str, object]:
    return {}


async def _drop(_: object) -> None:
    return None


def test_recalls_wait_while_the_worker_is_behind_and_start_once_it_has_caught_up() -> None:
    backlog = Backlog(0.25)
    backlog.started(published_at=time.time() - 5)
    inner = Recorder()
    gate = RecallSlots(inner, 2, backlog, hold_s=10.0)

    async def main() -> float:
        held = asyncio.create_task(gate(recall_scope(), _nothing, _drop))
        other = {"type": "http", "method": "POST", "path": "/v1/banks/b/memories"}
        await gate(other, _nothing, _drop)  # retains are never held
        await asyncio.sleep(0.1)
        assert len(inner.started_at) == 1  # only the retain went through
        caught_up = time.perf_counter()
        backlog.finished()
        backlog.started(published_at=time.time())
        await held
        return caught_up

    caught_up = asyncio.run(main())
    assert len(inner.started_at) == 2
    assert inner.started_at[1] >= caught_up


def test_a_recall_is_held_for_at_most_the_hold_time() -> None:
    backlog = Backlog(0.25)
    backlog.started(published_at=time.time() - 5)  # and never catches up
    inner = Recorder()
    gate = RecallSlots(inner, 0, backlog, hold_s=0.2)

    async def main() -> float:
        start = time.perf_counter()
        await asyncio.gather(*(gate(recall_scope(), _nothing, _drop) for _ in range(3)))
        return start

    start = asyncio.run(main())
    assert len(inner.started_at) == 3
    assert all(t - start >= 0.2 for t in inner.started_at)


class Spy(Backlog):
    def __init__(self) -> None:
        super().__init__(0.25)
        self.calls: list[object] = []

    def started(self, published_at: float | None) -> None:
        self.calls.append(("started", published_at))

    def finished(self) -> None:
        self.calls.append("finished")


def test_retain_tasks_report_their_publish_time_and_their_end(
    tmp_path: Path, store: object, metrics: object
) -> None:
    spy = Spy()
    d = replace(deps(tmp_path, store, metrics), backlog=spy)  # type: ignore[arg-type]
    task = TaskDouble(Request(headers={PUBLISHED_AT_HEADER: 1717243200.5}))
    handle(task, "sediment.retain.v1", [payload("Alice moved to Seattle.")], d)
    handle(TaskDouble(), "sediment.retain.v1", ["not an event"], d)
    assert spy.calls == [("started", 1717243200.5), "finished", ("started", None), "finished"]


def test_only_a_serve_that_hosts_the_worker_keeps_a_backlog(tmp_path: Path) -> None:
    embedded = bootstrap(Settings(mode="embedded", data_dir=tmp_path / "e"))
    assert embedded.backlog is not None and embedded.backlog.budget_s == 0.25
    assert embedded.worker_deps.backlog is embedded.backlog
    off = bootstrap(Settings(mode="embedded", data_dir=tmp_path / "o", serve_lag_budget_ms=0))
    assert off.backlog is None
    distributed = bootstrap(
        Settings(mode="distributed", data_dir=tmp_path / "d", qdrant_url="http://q:6333")
    )
    assert distributed.backlog is None
