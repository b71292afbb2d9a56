"""Gauges sampled on a timer: one sample per part and interval across processes (a
Redis lease), store sizes only where asked, and a thread keeping them fresh with
nobody running `sediment stats`."""

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sediment.bootstrap import Runtime
from sediment.sampler import GaugeSampler
from telemetry.metrics import DEAD_LETTERS, MEMORIES, OBSERVATIONS
from tests.unit.api_support import seeded_runtime


@pytest.fixture
def rt(tmp_path: Path) -> Iterator[Runtime]:
    runtime = seeded_runtime(tmp_path)
    yield runtime
    runtime.close()


def test_one_sample_per_part_and_interval_whoever_asks(rt: Runtime) -> None:
    first, second = (
        GaugeSampler(rt.gauges(store=True), rt.redis, 0.3),
        GaugeSampler(rt.gauges(store=True), rt.redis, 0.3),
    )
    assert first.sample_once() == ["backlog", "sizes"]
    assert second.sample_once() == []
    assert rt.metrics.snapshot(5).gauge(DEAD_LETTERS) == 0
    b1, b2 = rt.metrics.snapshot(5, bank="b1"), rt.metrics.snapshot(5, bank="b2")
    assert (b1.gauge(MEMORIES), b1.gauge(OBSERVATIONS)) == (4, 1)
    assert (b2.gauge(MEMORIES), b2.gauge(OBSERVATIONS)) == (1, 0)
    time.sleep(0.35)
    assert second.sample_once() == ["backlog", "sizes"]


def test_a_worker_samples_the_backlog_only(rt: Runtime) -> None:
    backlog = GaugeSampler(rt.gauges(store=False), rt.redis, 60)
    assert backlog.sample_once() == ["backlog"]
    assert rt.metrics.snapshot(5).gauge(MEMORIES) is None


def test_a_failed_sample_is_skipped_not_raised(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> int:
        raise OSError("dead letters unreadable")

    monkeypatch.setattr(rt.dead_letters, "length", broken)
    assert GaugeSampler(rt.gauges(store=True), rt.redis, 60).sample_once() == ["sizes"]


def test_the_thread_keeps_gauges_fresh_until_stopped(rt: Runtime) -> None:
    """`sediment serve` runs this thread in its lifespan (checked end to end in
    tests/integration/test_ops_e2e.py, where only the sampler moves the gauges)."""
    sampler = GaugeSampler(rt.gauges(store=True), rt.redis, 0.2)
    sampler.start()
    try:
        deadline = time.monotonic() + 10
        stamps: set[float] = set()
        while len(stamps) < 2 and time.monotonic() < deadline:
            snap = rt.metrics.snapshot(5)
            stamps |= {g.updated_at.timestamp() for g in snap.gauges if g.name == DEAD_LETTERS}
            time.sleep(0.05)
        assert len(stamps) >= 2, "the dead-letter gauge was not sampled twice"
    finally:
        sampler.stop()
    assert not sampler.running


def test_an_interval_of_zero_never_starts(rt: Runtime) -> None:
    sampler = GaugeSampler(rt.gauges(store=True), rt.redis, 0)
    sampler.start()
    assert not sampler.running
