"""Kill -9 of consumers and a crash of Redis under a stream of events; how long until
what the killed process held is handled, and what the store holds at the end."""

import contextlib
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.reliability.cluster import (
    Broker,
    Node,
    Proc,
    RedisServer,
    running,
    stored_raw,
    wait_for,
)
from bench.reliability.workload import (
    CeleryProducer,
    HttpProducer,
    Paced,
    expected_ids,
    make_events,
)
from telemetry.metrics import EVENTS, REDELIVERED, STORED

SETTLE_S = 900.0
RESTART_SETTLE_S = 120.0
"""How long the Redis restart case waits for what was accepted to be handled: four
times its target, so a worker that sits on its batch is reported rather than waited
for over SETTLE_S."""
RESTART_RATE = 100.0
"""Single-event messages a second in the Redis restart case: one every 10 ms, less than
a batch's quiet period (`worker_batch_wait_ms`, 20), so the worker always holds a batch
being filled, as under a producer that retains one event at a time."""


@dataclass
class Kill:
    """One kill -9: what the process held, how long until its events were handled
    (None: it held nothing), and until it answered again."""

    held: int
    recovery_s: float | None
    restart_s: float


@dataclass
class StreamResult:
    """`sent`, `stored`, `duplicated` and `lost` are read from the producer and the
    store; `counted_stored`, `redelivered` and `received` from the `events` counters
    (`counted_stored` must equal `stored`: the counter counts distinct events, and the
    deliveries of events already stored are `redelivered`, apart)."""

    scenario: str
    sent: int
    stored: int
    duplicated: int
    lost: int
    counted_stored: int
    redelivered: int
    received: int
    resent_by_producer: int
    kills: list[Kill] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        out = asdict(self)
        times = [k.recovery_s for k in self.kills if k.recovery_s is not None]
        out["recovery_max_s"] = round(max(times), 1) if times else None
        out["recovery_median_s"] = round(statistics.median(times), 1) if times else None
        out["restart_max_s"] = round(max((k.restart_s for k in self.kills), default=0.0), 1)
        return out


def kill_cycle(
    proc: Proc, broker: Broker, kills: int, interval_s: float, heartbeat: bool = True
) -> list[Kill]:
    """Every `interval_s`, kill -9 the process while it holds a message, restart it,
    and time until every event it held is handled (no longer owed in the ledger)."""
    done: list[Kill] = []
    next_at = time.monotonic() + interval_s
    for _ in range(kills):
        time.sleep(max(0.0, next_at - time.monotonic()))
        done.append(kill_once(proc, broker, heartbeat))
        next_at = max(next_at + interval_s, time.monotonic() + 1)
    return done


def consumers(broker: Broker, heartbeat: bool) -> frozenset[str]:
    """The consuming processes: by their heartbeats, or (settings without them) by
    Celery's ping, whose node name stays the same across a restart."""
    return broker.live() if heartbeat else broker.pinged()


def kill_once(proc: Proc, broker: Broker, heartbeat: bool = True) -> Kill:
    with contextlib.suppress(TimeoutError):
        wait_for(lambda: bool(broker.in_flight()), 20, "a message in flight", every=0.05)
    before = broker.live() if heartbeat else frozenset()
    killed_at = time.monotonic()
    proc.kill9()
    held = broker.in_flight()
    proc.start()
    wait_for(
        lambda: proc.healthy() and bool(consumers(broker, heartbeat) - before),
        120,
        "the restart",
    )
    restart_s = time.monotonic() - killed_at
    recovery = None
    if held:
        wait_for(lambda: not broker.still_owed(held), 600, "the held events", every=0.1)
        recovery = round(time.monotonic() - killed_at, 1)
    return Kill(len(held), recovery, round(restart_s, 1))


def _finish(
    scenario: str, node: Node, producer: Paced, broker: Broker, kills: list[Kill]
) -> StreamResult:
    """After the consumer stopped: compare what was accepted with what is stored."""
    events = producer.sent.events
    banks = sorted({e.bank_id for e in events})
    rt = node.runtime()
    try:
        count = stored_raw(rt, banks)
        snaps = [rt.metrics.snapshot(1440, b) for b in banks]
    finally:
        rt.close()
    expected = expected_ids(events)
    return StreamResult(
        scenario=scenario,
        sent=len(events),
        stored=len(count.ids & expected),
        duplicated=count.duplicated,
        lost=len(expected - count.ids),
        counted_stored=sum(s.total(EVENTS, outcome=STORED) for s in snaps),
        redelivered=sum(s.total(EVENTS, outcome=REDELIVERED) for s in snaps),
        received=sum(s.total(EVENTS, outcome="received") for s in snaps),
        resent_by_producer=producer.sent.refused,
        kills=kills,
        notes={"unacked_left": broker.unacked(), "ledger_left": broker.owed()},
    )


def worker_kills(
    server: RedisServer,
    workdir: Path,
    n_events: int,
    kills: int,
    interval_s: float,
    extra: dict[str, str] | None = None,
) -> StreamResult:
    """`sediment worker` consuming a Celery producer's stream, killed -9 `kills` times;
    `extra` settings for the worker (the recovery settings of before, say)."""
    name = "worker-kills-before" if extra else "worker-kills"
    node = Node(server.url, workdir, name, extra=dict(extra or {}))
    heartbeat = node.settings().holder_ttl_s > 0
    broker = Broker(server.client(), node.queue, server.url)
    events = make_events(name, n_events, [f"{name}-{i}" for i in range(20)])
    proc = Proc.worker(node)
    with running(proc):
        wait_for(lambda: bool(consumers(broker, heartbeat)), 60, "the worker to consume")
        producer = CeleryProducer(server.url, node.queue, events, (kills + 1) * interval_s)
        producer.start()
        done = kill_cycle(proc, broker, kills, interval_s, heartbeat)
        producer.join()
        wait_for(broker.settled, SETTLE_S, "the worker to drain the stream")
    return _finish("kill -9 of `sediment worker`", node, producer, broker, done)


def serve_kills(
    server: RedisServer, workdir: Path, n_events: int, kills: int, interval_s: float
) -> tuple[StreamResult, Node]:
    """`sediment serve` (standalone: it consumes in-process) taking HTTP retains,
    killed -9 `kills` times. Returns its node, whose store the next checks use."""
    node = Node(server.url, workdir, "serve-kills")
    broker = Broker(server.client(), node.queue, server.url)
    events = make_events("sk", n_events, [f"sk-{i}" for i in range(20)])
    proc = Proc.serve(node)
    with running(proc):
        producer = HttpProducer(proc.base_url, events, (kills + 1) * interval_s)
        producer.start()
        done = kill_cycle(proc, broker, kills, interval_s)
        producer.join()
        wait_for(broker.settled, SETTLE_S, "serve to drain the stream")
    return _finish("kill -9 of `sediment serve`", node, producer, broker, done), node


def redis_crash(server: RedisServer, workdir: Path, n_events: int, down_s: float) -> StreamResult:
    """Redis killed -9 mid-stream and restarted on its AOF: nothing accepted is lost,
    and no `unacked` entry is left behind (D8)."""
    node = Node(server.url, workdir, "redis-crash")
    broker = Broker(server.client(), node.queue, server.url)
    events = make_events("rc", n_events, [f"rc-{i}" for i in range(10)])
    proc = Proc.worker(node)
    duration = 60.0
    with running(proc):
        wait_for(lambda: broker.consumers() > 0, 60, "the worker's heartbeat")
        producer = CeleryProducer(server.url, node.queue, events, duration)
        producer.start()
        time.sleep(duration / 2)
        held = broker.in_flight()
        queued = broker.queued()
        server.kill()
        crashed_at = time.monotonic()
        time.sleep(down_s)
        server.start()
        back_s = time.monotonic() - crashed_at
        producer.join()
        drain_s = wait_for(broker.settled, SETTLE_S, "the stream after the restart")
        alive = proc.alive()
    result = _finish("Redis kill -9 and restart (AOF)", node, producer, broker, [])
    result.notes.update(
        {
            "held_at_crash": len(held),
            "queued_at_crash": queued,
            "redis_down_s": round(back_s, 1),
            "settled_after_restart_s": round(drain_s, 1),
            "worker_survived": alive,
        }
    )
    return result


def _within(predicate: Callable[[], bool], what: str) -> float | None:
    """Seconds until `predicate` holds; None if not within RESTART_SETTLE_S."""
    try:
        return round(wait_for(predicate, RESTART_SETTLE_S, what, every=0.1), 1)
    except TimeoutError:
        return None


def redis_restart(server: RedisServer, workdir: Path, n_events: int, down_s: float) -> StreamResult:
    """Redis stopped and started again (a deploy, a failover) while a live `sediment
    worker` holds retain messages in its batch, under a stream of single-event
    messages. Caught up: from Redis back until every event owed when it stopped is
    handled; settled: from the stream's last event until nothing is queued, held or
    owed. A worker whose batch flush timer went with the connection ran a batch only
    when a 64th message filled it, and sat on the stream's tail."""
    node = Node(server.url, workdir, "redis-restart")
    broker = Broker(server.client(), node.queue, server.url)
    events = make_events("rr", n_events, [f"rr-{i}" for i in range(10)])
    proc = Proc.worker(node)
    duration = n_events / RESTART_RATE
    with running(proc):
        wait_for(lambda: broker.consumers() > 0, 60, "the worker's heartbeat")
        producer = CeleryProducer(server.url, node.queue, events, duration, batch_size=1, chunk=1)
        producer.start()
        time.sleep(duration / 2)
        with contextlib.suppress(TimeoutError):
            wait_for(lambda: bool(broker.in_flight()), 20, "a message in flight", every=0.05)
        held, owed = broker.in_flight(), broker.owed_members()
        stopped_at = time.monotonic()
        server.stop()
        time.sleep(down_s)
        server.start()
        back_s = time.monotonic() - stopped_at
        caught_up = _within(lambda: not broker.still_owed(owed), "the events owed at the stop")
        producer.join()
        settled = _within(broker.settled, "the stream after its last event")
        alive = proc.alive()
    result = _finish("Redis restart under a live `sediment worker`", node, producer, broker, [])
    result.notes.update(
        {
            "held_at_stop": len(held),
            "owed_at_stop": len(owed),
            "redis_down_s": round(back_s, 1),
            "caught_up_s": caught_up,
            "settled_after_stream_s": settled,
            "waited_at_most_s": RESTART_SETTLE_S,
            "worker_survived": alive,
        }
    )
    return result
