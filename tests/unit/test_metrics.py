"""Metrics on fakeredis: minute buckets, TTLs, percentiles, one round trip per batch."""

import json
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import fakeredis
import numpy as np
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from telemetry.metrics import (
    BOUNDS_MS,
    EVENTS,
    RECALL_ERRORS,
    RECALL_MS,
    RECALL_STAGE_MS,
    RECALLS,
    NoopMetrics,
    bucket_bound,
    count_events,
    count_stored_once,
    quantile,
    record_recall,
)
from telemetry.redis_series import OWED, PREFIX, ProcessMetrics, RedisMetrics
from telemetry.series_fold import decode_labels, encode_labels

T0 = 1_700_000_000.0  # a minute boundary plus 20 s
RETENTION = 3600


@dataclass
class Clock:
    now: float = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def client() -> fakeredis.FakeRedis:
    return fakeredis.FakeRedis()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def metrics(client: fakeredis.FakeRedis, clock: Clock) -> RedisMetrics:
    return RedisMetrics(client, RETENTION, clock)


def minute(t: float) -> int:
    return int(t // 60)


def test_counters_go_to_one_key_per_series_and_minute(
    metrics: RedisMetrics, client: fakeredis.FakeRedis, clock: Clock
) -> None:
    metrics.incr(EVENTS, 2, {"outcome": "stored", "bank": "b1"})
    metrics.incr(EVENTS, 3, {"bank": "b1", "outcome": "stored"})
    clock.now += 60
    metrics.incr(EVENTS, 1, {"outcome": "stored", "bank": "b1"})
    m0, m1 = minute(T0), minute(T0 + 60)
    assert client.get(f"{PREFIX}c:events:bank=b1,outcome=stored:{m0}") == b"5"
    assert client.get(f"{PREFIX}c:events:bank=b1,outcome=stored:{m1}") == b"1"
    snap = metrics.snapshot(3)
    [series] = snap.counters
    assert series.series == (0, 5, 1) and series.total == 6
    assert series.labels == (("outcome", "stored"),)
    elapsed_min = (2 * 60 + T0 % 60) / 60
    assert series.per_minute == pytest.approx(6 / elapsed_min)
    assert metrics.snapshot(1).total(EVENTS) == 1


def test_histograms_count_buckets_count_and_sum_per_minute(
    metrics: RedisMetrics, client: fakeredis.FakeRedis
) -> None:
    with metrics.batch():
        for v in (0.05, 3.0, 3.1, 250.0, 1e9):
            metrics.observe(RECALL_MS, v, {"bank": "b1"})
    fields = client.hgetall(f"{PREFIX}h:recall_ms:bank=b1:{minute(T0)}")
    assert float(fields.pop(b"sum")) == pytest.approx(1e9 + 256.15)
    assert fields == {b"0.1": b"1", b"3.16": b"2", b"316": b"1", b"inf": b"1"}


def test_every_key_expires_within_the_retention(
    metrics: RedisMetrics, client: fakeredis.FakeRedis, clock: Clock
) -> None:
    for i in range(3):
        with metrics.batch():
            metrics.incr(EVENTS, 1, {"outcome": "received"})
            metrics.observe(RECALL_STAGE_MS, 1.5 * i, {"stage": "fuse"})
            metrics.gauge("queue_ready", i, {"queue": "q"})
        clock.now += 61
    keys = client.keys(f"{PREFIX}*")
    assert len(keys) == 3 + 3 + 1 + 3 + 1  # counters, histograms, gauge, minute indexes, index
    assert all(0 < client.ttl(k) <= RETENTION for k in keys)


@pytest.mark.parametrize(
    ("samples", "smooth"),
    [
        (np.random.default_rng(1).lognormal(2.0, 0.8, 20_000), True),
        (np.random.default_rng(2).lognormal(6.0, 1.5, 20_000), True),
        (np.random.default_rng(3).uniform(5, 500, 20_000), False),
        (np.concatenate([np.full(9_000, 2.0), np.full(1_000, 800.0)]), False),
    ],
    ids=["lognormal-fast", "lognormal-wide", "uniform", "two-points"],
)
def test_percentiles_from_buckets_match_the_distribution(
    metrics: RedisMetrics, samples: Any, smooth: bool
) -> None:
    """Within 5% for smooth latency-like distributions; for any distribution the
    estimate is inside the bucket that holds the true value (at most 33% wide)."""
    with metrics.batch():
        for v in samples:
            metrics.observe(RECALL_MS, float(v))
    h = metrics.snapshot(1).latency(RECALL_MS)
    assert h is not None and h.count == len(samples)
    assert h.sum_ms == pytest.approx(float(np.sum(samples)), rel=1e-9)
    for q, got in ((50, h.p50_ms), (95, h.p95_ms), (99, h.p99_ms)):
        want = float(np.percentile(samples, q))
        assert got is not None and bucket_bound(got) == bucket_bound(want), q
        if smooth:
            assert got == pytest.approx(want, rel=0.05), q


def test_quantile_edges() -> None:
    assert quantile({}, 0.5) is None
    assert quantile({math.inf: 3}, 0.99) == BOUNDS_MS[-1]
    assert quantile({1.0: 1}, 0.5) == pytest.approx(0.875)
    assert bucket_bound(1.0) == 1.0 and bucket_bound(1.01) == 1.33
    assert bucket_bound(BOUNDS_MS[-1] * 2) == math.inf
    assert list(BOUNDS_MS) == sorted(set(BOUNDS_MS)) and BOUNDS_MS[0] == 0.1


@pytest.fixture
def round_trips(
    client: fakeredis.FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[int]]:
    """Counts what reaches the server: one `send_packed_command` per round trip."""
    client.ping()
    calls = [0]
    cls = client.connection_pool.connection_class
    original: Callable[..., Any] = cls.send_packed_command

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, "send_packed_command", counting)
    yield calls


def test_a_batch_is_one_round_trip(metrics: RedisMetrics, round_trips: list[int]) -> None:
    with metrics.batch():
        for i in range(20):
            metrics.incr(EVENTS, 1, {"outcome": "stored", "bank": f"b{i % 3}"})
            metrics.observe(RECALL_STAGE_MS, i, {"stage": f"s{i % 4}"})
        with metrics.batch():
            metrics.gauge("dead_letters", 4)
        assert round_trips == [0]
    assert round_trips == [1]
    metrics.incr(EVENTS)
    assert round_trips == [2]
    metrics.snapshot(15)
    assert round_trips == [4]


def test_a_batch_is_flushed_when_the_work_raises(metrics: RedisMetrics) -> None:
    with pytest.raises(KeyError), metrics.batch():
        metrics.incr(EVENTS, 1, {"outcome": "retried"})
        raise KeyError("boom")
    assert metrics.snapshot(1).total(EVENTS, outcome="retried") == 1


def test_threads_batch_separately(metrics: RedisMetrics) -> None:
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with metrics.batch():
            metrics.incr(EVENTS, 5, {"outcome": "received"})
            inside.set()
            release.wait(5)

    t = threading.Thread(target=other)
    t.start()
    inside.wait(5)
    metrics.incr(EVENTS, 1, {"outcome": "stored"})
    assert metrics.snapshot(1).total(EVENTS) == 1
    release.set()
    t.join()
    assert metrics.snapshot(1).total(EVENTS) == 6


def test_snapshot_by_bank(metrics: RedisMetrics) -> None:
    with metrics.batch():
        count_events(metrics, "stored", ["alpha", "alpha", "beta", None])
        metrics.observe(RECALL_MS, 5.0, {"bank": "alpha"})
        metrics.observe(RECALL_MS, 500.0, {"bank": "beta"})
        metrics.observe(RECALL_STAGE_MS, 1.0, {"stage": "fuse"})
        metrics.gauge("memories", 10, {"bank": "alpha"})
        metrics.gauge("memories", 7, {"bank": "beta"})
        metrics.gauge("dead_letters", 3)
    everything = metrics.snapshot(5)
    assert everything.total(EVENTS, outcome="stored") == 4
    assert everything.banks == ("alpha", "beta")
    assert everything.gauge("memories") == 17 and everything.gauge("dead_letters") == 3
    alpha = metrics.snapshot(5, bank="alpha")
    assert alpha.bank == "alpha" and alpha.banks == ("alpha",)
    assert alpha.total(EVENTS, outcome="stored") == 2
    h = alpha.latency(RECALL_MS)
    assert h is not None and h.count == 1 and h.sum_ms == 5.0
    assert alpha.latency(RECALL_STAGE_MS, stage="fuse") is None
    assert alpha.gauge("memories") == 10 and alpha.gauge("dead_letters") is None
    assert metrics.snapshot(5, bank="nobody").counters == ()


def test_old_minutes_leave_the_window(metrics: RedisMetrics, clock: Clock) -> None:
    metrics.incr(EVENTS, 9, {"outcome": "stored"})
    clock.now += 5 * 60
    assert metrics.snapshot(5).total(EVENTS) == 0
    assert metrics.snapshot(6).total(EVENTS) == 9


def test_labels_survive_any_characters(metrics: RedisMetrics) -> None:
    labels = {"bank": "team:a,b=c%d", "outcome": "stored"}
    assert dict(decode_labels(encode_labels(labels))) == labels
    assert ":" not in encode_labels(labels)
    metrics.incr(EVENTS, 1, labels)
    assert metrics.snapshot(1, bank="team:a,b=c%d").total(EVENTS) == 1
    with pytest.raises(ValueError, match="names"):
        metrics.incr("Bad-Name")


def test_an_owed_count_is_counted_once_and_every_other_apart(
    metrics: RedisMetrics, client: fakeredis.FakeRedis
) -> None:
    assert metrics.expect(["e1", "e2"])
    assert 0 < client.ttl(f"{OWED}e1") <= RETENTION
    with metrics.batch():
        count_stored_once(metrics, "e1", "b1")
        count_stored_once(metrics, "e1", "b1")
        assert client.exists(f"{OWED}e1")  # held until the batch is sent
    count_stored_once(metrics, "e1", "b1")
    count_stored_once(metrics, "e3", "b1")  # never owed: a delivery of an event done before
    count_stored_once(metrics, "e4", None, force=True)  # `expect` failed: counted anyway
    snap = metrics.snapshot(1)
    assert snap.total(EVENTS, outcome="stored") == 2
    assert snap.total(EVENTS, outcome="redelivered") == 3
    assert metrics.snapshot(1, bank="b1").total(EVENTS, outcome="stored") == 1
    assert not client.exists(f"{OWED}e1") and client.exists(f"{OWED}e2")
    m = minute(T0)
    key = f"{PREFIX}c:events:bank=b1,outcome=redelivered:{m}"
    assert 0 < client.ttl(key) <= RETENTION
    assert 0 < client.ttl(f"{PREFIX}minute:{m}") <= RETENTION


def test_a_batch_of_owed_counts_settles_each_token_by_its_own_state(
    metrics: RedisMetrics, client: fakeredis.FakeRedis, clock: Clock
) -> None:
    """Distinct tokens all owed (settled together), then distinct tokens of which one is
    not owed, across two banks and two minutes: each counted as its own state says."""
    owed = [f"a{i}" for i in range(50)]
    assert metrics.expect(owed)
    with metrics.batch():
        for i, token in enumerate(owed):
            count_stored_once(metrics, token, f"b{i % 2}")
    assert not any(client.exists(f"{OWED}{t}") for t in owed)
    assert metrics.expect(["c1", "c2"])
    with metrics.batch():
        count_stored_once(metrics, "c1", "b0")
        count_stored_once(metrics, "a3", "b1")  # settled in the first batch
        clock.now += 60
        count_stored_once(metrics, "c2", "b0")
        count_stored_once(metrics, "d1", "b1", force=True)
    snap = metrics.snapshot(2)
    assert snap.total(EVENTS, outcome="stored") == 53
    assert snap.total(EVENTS, outcome="redelivered") == 1
    assert metrics.snapshot(2, bank="b0").total(EVENTS, outcome="stored") == 27
    assert metrics.snapshot(2, bank="b1").total(EVENTS, outcome="redelivered") == 1
    for m in (minute(T0), minute(T0) + 1):
        assert 0 < client.ttl(f"{PREFIX}c:events:bank=b0,outcome=stored:{m}") <= RETENTION
        assert 0 < client.ttl(f"{PREFIX}minute:{m}") <= RETENTION


def test_writes_never_raise_when_redis_is_down(clock: Clock) -> None:
    server = fakeredis.FakeServer()
    server.connected = False
    down = RedisMetrics(fakeredis.FakeRedis(server=server), RETENTION, clock)
    with down.batch():
        down.incr(EVENTS)
        down.observe(RECALL_MS, 1.0)
        count_stored_once(down, "e1", "b1")
    assert down.expect(["e1"]) is False
    with pytest.raises(redis.ConnectionError):
        down.snapshot(1)


def test_record_recall_counts_errors_and_stages(metrics: RedisMetrics) -> None:
    record_recall(metrics, "b1", {"fetch": 2.0, "fuse": 0.3}, 4.0, error=False)
    record_recall(metrics, "b1", {}, 9.0, error=True)
    snap = metrics.snapshot(1)
    assert snap.total(RECALLS) == 2 and snap.total(RECALL_ERRORS) == 1
    total = snap.latency(RECALL_MS)
    assert total is not None and total.count == 2 and total.mean_ms == 6.5
    assert [dict(h.labels)["stage"] for h in snap.latencies if h.name == RECALL_STAGE_MS] == [
        "fetch",
        "fuse",
    ]


def test_snapshot_json_is_plain_json(metrics: RedisMetrics) -> None:
    metrics.observe(RECALL_MS, 1e12, {"bank": "b1"})
    metrics.incr(EVENTS, 1, {"outcome": "stored", "bank": "b1"})
    body = json.loads(metrics.snapshot(2).to_json())
    assert body["counters"][0]["labels"] == {"outcome": "stored"}
    assert body["latencies"][0]["buckets"] == [["inf", 1]]
    assert body["minutes"] == 2 and body["at"].endswith("+00:00")


def test_noop_metrics_keep_nothing() -> None:
    noop = NoopMetrics()
    with noop.batch():
        noop.incr(EVENTS)
        noop.observe(RECALL_MS, 1.0)
        noop.gauge("dead_letters", 1)
    snap = noop.snapshot(15, bank="b")
    assert (snap.counters, snap.latencies, snap.gauges, snap.bank) == ((), (), (), "b")


def test_a_steady_batch_sends_only_increments(
    metrics: RedisMetrics, client: fakeredis.FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[list[str]] = []
    pipeline_class = type(client.pipeline())
    original = pipeline_class.execute

    def recording(self: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append([str(c[0][0]) for c in self.command_stack])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pipeline_class, "execute", recording)

    def one_task() -> None:
        with metrics.batch():
            metrics.incr(EVENTS, 1, {"outcome": "stored", "bank": "b"})
            metrics.observe(RECALL_MS, 2.0, {"bank": "b"})
            metrics.observe(RECALL_MS, 2.1, {"bank": "b"})

    one_task()
    one_task()
    assert sorted(sent[0]) == sorted(
        ["INCRBY", "HINCRBY", "HINCRBYFLOAT", "EXPIRE", "EXPIRE", "SADD", "EXPIRE"]
    )
    assert sent[1] == ["INCRBY", "HINCRBY", "HINCRBYFLOAT"]


def test_keys_written_after_a_failed_flush_still_get_their_ttl(clock: Clock) -> None:
    server = fakeredis.FakeServer()
    client = fakeredis.FakeRedis(server=server)
    metrics = RedisMetrics(client, RETENTION, clock)
    server.connected = False
    metrics.incr(EVENTS, 1, {"outcome": "stored"})
    server.connected = True
    metrics.incr(EVENTS, 1, {"outcome": "stored"})
    keys = client.keys(f"{PREFIX}*")
    assert len(keys) == 2 and all(0 < client.ttl(k) <= RETENTION for k in keys)
    assert metrics.snapshot(1).total(EVENTS) == 1


def test_a_deferred_batch_is_sent_when_the_deferred_job_runs(metrics: RedisMetrics) -> None:
    jobs: list[Callable[[], None]] = []
    with metrics.batch(defer=jobs.append):
        metrics.incr(EVENTS, 2, {"outcome": "stored"})
        with metrics.batch(defer=lambda job: pytest.fail("only the outermost batch defers")):
            metrics.observe(RECALL_MS, 3.0)
    assert metrics.snapshot(1).total(EVENTS) == 0
    [job] = jobs
    job()
    snap = metrics.snapshot(1)
    latency = snap.latency(RECALL_MS)
    assert snap.total(EVENTS) == 2 and latency is not None and latency.count == 1


def test_latency_percentiles_per_minute(metrics: RedisMetrics, clock: Clock) -> None:
    """Each minute's own percentiles, so a chart can draw them over time; the window's
    are over all of them, and a minute without observations is None."""
    for ms in (1.0, 1.0, 1.0):
        metrics.observe(RECALL_MS, ms, {"bank": "a"})
    clock.now += 120
    for ms in (100.0, 100.0, 100.0, 1.0):
        metrics.observe(RECALL_MS, ms, {"bank": "b"})
    [h] = metrics.snapshot(4).latencies
    assert h.series == (0, 3, 0, 4)
    assert h.p50_series[0] is None and h.p50_series[2] is None
    assert h.p50_series[1] == pytest.approx(quantile({bucket_bound(1.0): 3}, 0.5))
    assert h.p95_series[3] == pytest.approx(
        quantile({bucket_bound(100.0): 3, bucket_bound(1.0): 1}, 0.95)
    )
    assert h.p50_ms == pytest.approx(quantile({bucket_bound(1.0): 4, bucket_bound(100.0): 3}, 0.5))
    body = json.loads(metrics.snapshot(4).to_json())["latencies"][0]
    assert body["series"] == [0, 3, 0, 4] and body["p99_series"][0] is None


@dataclass
class Monotonic:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now


Step = tuple[str, int, int, bool]
"""(kind, token, bank, force): `expect` of tokens 0..token, a count of token in bank
(forced or not), a batch of counts of tokens from token on, or a minute passing."""


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["expect", "count", "batch", "minute"]),
            st.integers(0, 5),
            st.integers(0, 1),
            st.booleans(),
        ),
        max_size=30,
    )
)
def test_process_metrics_count_as_redis_metrics_do(steps: list[Step]) -> None:
    """Embedded mode settles owed counts in the process: any sequence of `expect`s and
    counts, in batches or not, across minutes, gives the snapshot the script gives."""
    clock = Clock()
    shared = RedisMetrics(fakeredis.FakeRedis(), RETENTION, clock)
    local = ProcessMetrics(fakeredis.FakeRedis(), RETENTION, clock)
    for kind, token, bank, force in steps:
        for m in (shared, local):
            if kind == "expect":
                assert m.expect([f"e{i}" for i in range(token + 1)])
            elif kind == "count":
                count_stored_once(m, f"e{token}", f"b{bank}", force)
            elif kind == "batch":
                with m.batch():
                    for i in range(token, 6):
                        count_stored_once(m, f"e{i}", f"b{bank}", force and i == token)
        if kind == "minute":
            clock.now += 60
    for bank in (None, "b0", "b1"):
        want, got = shared.snapshot(3, bank), local.snapshot(3, bank)
        assert got.counters == want.counters


def test_process_metrics_forget_what_is_owed_after_the_retention() -> None:
    expiry = Monotonic()
    m = ProcessMetrics(fakeredis.FakeRedis(), RETENTION, Clock(), expiry)
    assert m.expect(["e1", "e2"])
    expiry.now += RETENTION - 1
    assert m.expect(["e3"])
    count_stored_once(m, "e1", "b1")
    expiry.now += 2
    count_stored_once(m, "e2", "b1")  # owed no longer: counted as a redelivery
    count_stored_once(m, "e3", "b1")
    assert m.expect(["e4"])  # the expired token is dropped, not kept
    assert list(m._owed) == ["e4"]
    snap = m.snapshot(1)
    assert snap.total(EVENTS, outcome="stored") == 2
    assert snap.total(EVENTS, outcome="redelivered") == 1
