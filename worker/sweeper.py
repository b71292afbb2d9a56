"""The ledger sweeper: publish again what the ledger still owes and no one holds.

An entry is republished only when it is provably neither waiting nor in flight:

* not queued: kombu pushes at the head and pops at the tail, so the tail is the oldest
  message waiting, and its publish-time header is at most its push time. An entry
  older (by the grace period) than the tail was published before everything still
  queued, and a retry re-dates its entry when it queues the event again, so it is not
  among them. A backlog therefore never looks lost, however long. A tail without the
  header proves nothing and holds back that queue's entries.
* not in flight: none of the messages in the `unacked` hash (workers x prefetch, plus
  held ETA retries) carries the event.
* still so a moment later: a message is briefly in neither place while a live worker
  moves it from the list to `unacked`; the sweeper looks twice.

A message requeued at the head after a crash (a rare path) can still make an event look
lost while it waits: the duplicate is harmless, consolidation is idempotent by event id.
Each republish is conditional on the entry not having changed since it was judged.

A republished message carries the time its events were first accepted (the entry's
`accepted_at`; for an entry written before the ledger kept it, the latest publish time
the sweeper judged), not the time of the republish: a forget requested after the
events were accepted covers them however late they arrive (worker/forget_rules.py).
The header is still never later than the message's push, which is all the queue-tail
argument above needs.

Before judging the ledger, a sweep puts back on their queue the unacknowledged messages
of consuming processes that died (worker/holders.py): without it they would wait for
the visibility timeout.
"""

import base64
import json
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

import redis
import structlog
from celery import Celery

from contracts.deadletter import DeadLetter
from worker.celery_app import FEEDBACK_TASK, FORGET_TASK, PUBLISHED_AT_HEADER, RETAIN_TASK
from worker.deadletters import DeadLetters
from worker.holders import Orphans
from worker.ledger import INDEX_KEY, Entry, Kind, Ledger, member, payload_key
from worker.publish import republish

log = structlog.get_logger("sediment.sweeper")

SWEEP_LOCK = "sediment:ledger:sweep"
SWEEP_LOCK_TTL_S = 30
PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")
"""kombu's Redis transport keeps priorities 3, 6 and 9 in lists beside the queue's own."""


@dataclass
class SweepReport:
    swept: bool = True
    candidates: int = 0
    in_flight: int = 0
    republished: list[str] = field(default_factory=list)
    abandoned: list[str] = field(default_factory=list)
    held_back: int = 0
    restored: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Snapshot:
    """One atomic read: queue tails, in-flight events, index scores of the candidates."""

    tails: dict[str, float | None]
    in_flight: set[str]
    scores: dict[str, float]


def _envelope(raw: bytes | str) -> dict[str, object] | None:
    try:
        message = json.loads(raw)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def published_at(raw: bytes | str | None) -> float | None:
    """The publish-time header of a queued message, if it has a usable one."""
    message = _envelope(raw) if raw is not None else None
    headers = message.get("headers") if message else None
    value = headers.get(PUBLISHED_AT_HEADER) if isinstance(headers, dict) else None
    try:
        at = float(value) if isinstance(value, int | float | str) else math.nan
    except ValueError:
        return None
    return at if math.isfinite(at) else None


_TASK_KINDS = {FEEDBACK_TASK: Kind.FEEDBACK, FORGET_TASK: Kind.FORGET}
_KIND_TASKS = {Kind.RETAIN: RETAIN_TASK, Kind.FEEDBACK: FEEDBACK_TASK, Kind.FORGET: FORGET_TASK}
"""A dead letter names the task that replays it (`sediment dlq replay`)."""


def carried(raw_unacked: bytes | str) -> set[str]:
    """Ledger members of the events in one `unacked` value ([message, exchange, key])."""
    try:
        message = json.loads(raw_unacked)[0]
        headers, props = message["headers"], message["properties"]
        body = message["body"]
        if props.get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
    except (ValueError, KeyError, IndexError, TypeError):
        return set()
    kind = _TASK_KINDS.get(str(headers.get("task")), Kind.RETAIN)
    first = args[0] if isinstance(args, list) and args else None
    payloads = first if isinstance(first, list) else [first]
    return {member(kind, key) for p in payloads if (key := payload_key(p)) is not None}


class Sweeper:
    """One sweep at a time across all processes (a Redis lock); see the module doc."""

    def __init__(
        self,
        ledger: Ledger,
        republish: Callable[[Sequence[Entry], float], int],
        abandon: Callable[[Entry], None],
        grace_s: float,
        max_republish: int,
        unacked_key: str = "unacked",
        queues: Sequence[str] = (),
        confirm_s: float = 1.0,
        limit: int = 10_000,
        clock: Callable[[], float] = time.time,
        pause: Callable[[float], None] = time.sleep,
        orphans: Orphans | None = None,
        restore: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        self._ledger = ledger
        self._client: redis.Redis = ledger.client
        self._republish = republish
        self._abandon = abandon
        self._grace = grace_s
        self._max = max_republish
        self._unacked = unacked_key
        self._queues = sorted(queues)
        self._confirm = confirm_s
        self._limit = limit
        self._clock = clock
        self._pause = pause
        self._orphans = orphans
        self._restore = restore

    def sweep(self) -> SweepReport:
        lock = self._client.lock(SWEEP_LOCK, timeout=SWEEP_LOCK_TTL_S)
        if not lock.acquire(blocking=False):
            return SweepReport(swept=False)
        try:
            restored = self._restore_orphans()
            report = self._sweep()
            report.restored = restored
            return report
        finally:
            with suppress(redis.exceptions.LockError):
                lock.release()

    def _restore_orphans(self) -> list[str]:
        """Messages of dead consumers back on their queue (kombu's restore, at the end
        that is consumed next)."""
        if self._orphans is None or self._restore is None:
            return []
        tags = self._orphans.find()
        if tags:
            self._restore(tags)
            self._orphans.restored(tags)
            log.warning("restored_unacked", messages=len(tags), tags=tags[:20])
        return tags

    def _sweep(self) -> SweepReport:
        """Only entries older than the known queues' oldest waiting message are read, so a
        long backlog costs nothing; each is then judged against its own queue."""
        now = self._clock()
        with self._client.pipeline(transaction=False) as pipe:
            self._read_tails(pipe, self._queues)
            known = self._tails(self._queues, pipe.execute()).values()
        cutoff = min([now, *(t for t in known if t is not None)]) - self._grace
        entries = self._ledger.entries(self._ledger.older_than(cutoff, self._limit))
        report = SweepReport()
        first = self._snapshot(entries.values())
        doubtful = self._lost(entries, first, now, report)
        report.candidates = len(doubtful)
        if not doubtful:
            return report
        self._pause(self._confirm)
        second = self._snapshot(doubtful)
        lost = [
            e
            for e in self._lost({e.member: e for e in doubtful}, second, self._clock(), None)
            if second.scores.get(e.member) == first.scores.get(e.member)
        ]
        self._settle_lost(lost, first.scores, report)
        return report

    def _snapshot(self, entries: Iterable[Entry]) -> Snapshot:
        entries = list(entries)
        queues = sorted({e.queue for e in entries})
        names = [e.member for e in entries]
        with self._client.pipeline(transaction=True) as pipe:
            self._read_tails(pipe, queues)
            pipe.hvals(self._unacked)
            if names:
                pipe.zmscore(INDEX_KEY, names)
            replies = pipe.execute()
        scores = replies.pop() if names else []
        unacked = replies.pop()
        tails = self._tails(queues, replies)
        in_flight = {m for raw in unacked for m in carried(raw)}
        known = {n: float(s) for n, s in zip(names, scores, strict=True) if s is not None}
        return Snapshot(tails, in_flight, known)

    @staticmethod
    def _read_tails(pipe: "redis.client.Pipeline", queues: Sequence[str]) -> None:
        for q in queues:
            for suffix in PRIORITY_SUFFIXES:
                pipe.lindex(q + suffix, -1)

    @classmethod
    def _tails(cls, queues: Sequence[str], replies: list[bytes | None]) -> dict[str, float | None]:
        n = len(PRIORITY_SUFFIXES)
        return {q: cls._oldest(replies[i * n : i * n + n]) for i, q in enumerate(queues)}

    @staticmethod
    def _oldest(tails: Sequence[bytes | None]) -> float | None:
        """The oldest publish time waiting in a queue; -inf when a tail has none (no proof);
        None when the queue is empty."""
        present = [t for t in tails if t is not None]
        if not present:
            return None
        times = [published_at(t) for t in present]
        known = [t for t in times if t is not None]
        return min(known) if len(known) == len(times) else -math.inf

    def _lost(
        self,
        entries: dict[str, Entry],
        snap: Snapshot,
        now: float,
        report: SweepReport | None,
    ) -> list[Entry]:
        lost = []
        for name, entry in entries.items():
            score = snap.scores.get(name)
            if score is None:
                continue
            if name in snap.in_flight:
                if report is not None:
                    report.in_flight += 1
                continue
            tail = snap.tails.get(entry.queue)
            cutoff = now if tail is None else min(now, tail)
            if score < cutoff - self._grace:
                lost.append(entry)
            elif report is not None and tail is not None:
                report.held_back += 1
        return lost

    def _settle_lost(
        self, lost: Sequence[Entry], scores: dict[str, float], report: SweepReport
    ) -> None:
        at = self._clock()
        claimed = []
        for entry in lost:
            seen = scores[entry.member]
            if entry.republished >= self._max:
                if self._ledger.claim(entry, seen, at, None):
                    self._abandon(entry)
                    report.abandoned.append(entry.member)
                continue
            accepted = entry.accepted_at if entry.accepted_at is not None else seen
            again = Entry(
                entry.kind, entry.key, entry.queue, entry.payload, entry.republished + 1, accepted
            )
            if self._ledger.claim(entry, seen, at, again):
                claimed.append(again)
        if claimed:
            self._republish(claimed, at)
            report.republished = [e.member for e in claimed]
            log.warning("republished", events=len(claimed), members=report.republished[:20])


class SweepLoop:
    """Runs `sweep` every `interval_s` in a daemon thread until stopped (the ledger sweep,
    the expiry sweep); a failed sweep is logged and tried again next time (Redis or the
    store may be away for a while)."""

    def __init__(
        self, sweep: Callable[[], object], interval_s: float, name: str = "sediment-sweeper"
    ) -> None:
        self._sweep = sweep
        self._interval = interval_s
        self._name = name
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        if not self._thread.is_alive() and not self._stop.is_set():
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._sweep()
            except Exception as exc:
                log.warning(
                    "sweep_failed",
                    sweep=self._name,
                    error=type(exc).__name__,
                    message=str(exc)[:300],
                )


def restore_unacked(app: Celery, tags: Sequence[str]) -> None:
    """kombu's own restore of unacknowledged messages, by delivery tag: atomic (a
    transaction watching the `unacked` hash), marked redelivered, pushed where the
    queue is consumed next."""
    with app.connection_for_write() as conn:
        qos = conn.default_channel.qos
        for tag in tags:
            qos.restore_by_tag(tag, leftmost=False)


def make_sweeper(
    app: Celery,
    ledger: Ledger,
    dead_letters: DeadLetters,
    grace_s: float,
    max_republish: int,
    queues: Sequence[str] = (),
    holder_ttl_s: float = 0,
) -> Sweeper:
    """A sweeper that republishes through `app` and dead-letters what it gives up on;
    `queues` (the ones this deployment consumes) bound what each sweep reads. With
    `holder_ttl_s`, it also restores the messages of consumers whose heartbeat lapsed."""

    def abandon(entry: Entry) -> None:
        now = datetime.now(UTC)
        task = _KIND_TASKS[entry.kind]
        dead_letters.add(
            DeadLetter(
                task=task,
                payload=json.dumps(entry.payload, sort_keys=True),
                error_class="Undelivered",
                message=(
                    f"published {entry.republished + 1} times and never settled by a worker "
                    "(do the workers use the same Redis as the producers?)"
                ),
                attempts=entry.republished + 1,
                first_seen=now,
                last_seen=now,
            )
        )
        log.error("abandoned", member=entry.member, republished=entry.republished)

    options = app.conf.broker_transport_options or {}
    unacked = str(options.get("unacked_key", "unacked"))
    index = str(options.get("unacked_index_key", "unacked_index"))
    orphans = Orphans(ledger.client, holder_ttl_s, unacked, index) if holder_ttl_s > 0 else None
    return Sweeper(
        ledger,
        partial(republish, app),
        abandon,
        grace_s,
        max_republish,
        unacked_key=unacked,
        queues=queues,
        orphans=orphans,
        restore=partial(restore_unacked, app),
    )
