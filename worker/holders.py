"""Who holds which unacknowledged message: a heartbeat per consuming process.

kombu's Redis transport keeps a delivered message in the `unacked` hash until the
worker acknowledges it, and gives it back to the queue only after the visibility
timeout (SEDIMENT_VISIBILITY_TIMEOUT_S, 300 s by default): a worker killed with -9
held its events back for five minutes. So each consuming process (`sediment worker`,
and `sediment serve` where it consumes) writes, every quarter of
SEDIMENT_HOLDER_TTL_S, the delivery tags Celery holds for it (reserved, waiting for an
ETA, running) under a key that expires after SEDIMENT_HOLDER_TTL_S. A killed process
stops writing and its key lapses; the sweeper (worker/sweeper.py) then puts the
messages that no live process claims back on their queue with kombu's own restore.

Layout, in the broker's Redis database:

    sediment:holders          zset    process name -> Unix seconds of its latest beat
    sediment:holder:<name>    string  JSON list of the delivery tags it holds; expires
"""

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass

import redis
import structlog
from celery.worker import state

log = structlog.get_logger("sediment.holders")

HOLDERS_KEY = "sediment:holders"
HOLDER_PREFIX = "sediment:holder:"


def process_name() -> str:
    """Unique per process lifetime: a restarted process on a reused pid is a new holder."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def celery_held() -> list[str]:
    """The delivery tags of the messages Celery holds in this process: reserved, waiting
    for their ETA, or running (`celery.worker.state.requests`, kept by the consumer)."""
    requests = list(state.requests.values())
    tags = (getattr(getattr(r, "message", None), "delivery_tag", None) for r in requests)
    return [str(t) for t in tags if t]


class Heartbeat:
    """Writes this process's held delivery tags every `ttl_s / 4` until stopped."""

    def __init__(
        self,
        client: redis.Redis,
        ttl_s: float,
        held: Callable[[], Iterable[str]] = celery_held,
        name: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._ttl = ttl_s
        self._held = held
        self.name = name or process_name()
        self._clock = clock
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sediment-heartbeat", daemon=True)

    def beat(self) -> None:
        tags = sorted(set(self._held()))
        with self._client.pipeline(transaction=True) as pipe:
            pipe.set(HOLDER_PREFIX + self.name, json.dumps(tags), px=int(self._ttl * 1000))
            pipe.zadd(HOLDERS_KEY, {self.name: self._clock()})
            pipe.execute()

    def start(self) -> None:
        if not self._thread.is_alive() and not self._stop.is_set():
            self._thread.start()

    def stop(self) -> None:
        """A clean stop: Celery has given back what it held; the key goes at once."""
        self._stop.set()
        with suppress(redis.exceptions.RedisError):
            self._client.delete(HOLDER_PREFIX + self.name)
            self._client.zrem(HOLDERS_KEY, self.name)

    def _run(self) -> None:
        while True:
            try:
                self.beat()
            except Exception as exc:
                log.warning("heartbeat_failed", error=type(exc).__name__, message=str(exc)[:300])
            if self._stop.wait(self._ttl / 4):
                return


@dataclass(frozen=True)
class Claims:
    """What live processes hold, and which registered processes are gone."""

    tags: frozenset[str]
    live: frozenset[str]
    dead: frozenset[str]


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def read_claims(client: redis.Redis) -> Claims:
    names = [_text(n) for n in client.zrange(HOLDERS_KEY, 0, -1)]
    values = client.mget([HOLDER_PREFIX + n for n in names]) if names else []
    tags: set[str] = set()
    live, dead = set(), set()
    for name, raw in zip(names, values, strict=True):
        if raw is None:
            dead.add(name)
            continue
        live.add(name)
        with suppress(ValueError, TypeError):
            tags.update(str(t) for t in json.loads(raw))
    return Claims(frozenset(tags), frozenset(live), frozenset(dead))


def forget(client: redis.Redis, names: Iterable[str]) -> None:
    """Drop dead processes from the registry (their keys have lapsed already)."""
    names = list(names)
    if names:
        client.zrem(HOLDERS_KEY, *names)


class Orphans:
    """Unacknowledged messages no live process holds, judged over two looks.

    A message is an orphan when it was delivered more than `ttl_s` ago, no live
    heartbeat claims it, and it was already unclaimed at a look at least half of
    `ttl_s` earlier (two beats of its holder, had it one): a live consumer claims what
    it receives within one beat. An `unacked` entry without its index score (kombu's
    own restore, which reads the index, would never see it) is given one, dated now.
    """

    def __init__(
        self,
        client: redis.Redis,
        ttl_s: float,
        unacked_key: str = "unacked",
        index_key: str = "unacked_index",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._ttl = ttl_s
        self._unacked = unacked_key
        self._index = index_key
        self._clock = clock
        self._unclaimed_since: dict[str, float] = {}

    def find(self) -> list[str]:
        now = self._clock()
        with self._client.pipeline(transaction=True) as pipe:
            pipe.hkeys(self._unacked)
            pipe.zrange(self._index, 0, -1, withscores=True)
            keys, scored = pipe.execute()
        claims = read_claims(self._client)
        tags = {_text(k) for k in keys}
        delivered = {_text(t): float(s) for t, s in scored}
        unindexed = [t for t in tags if t not in delivered]
        if unindexed:
            self._client.zadd(self._index, dict.fromkeys(unindexed, now), nx=True)
            log.warning("unacked_without_index", tags=unindexed[:20], count=len(unindexed))
        unclaimed = {
            t for t in tags - claims.tags if t in delivered and delivered[t] < now - self._ttl
        }
        since = {t: self._unclaimed_since.get(t, now) for t in unclaimed}
        self._unclaimed_since = since
        forget(self._client, claims.dead)
        return sorted(t for t, first in since.items() if now - first >= self._ttl / 2)

    def restored(self, tags: Iterable[str]) -> None:
        for tag in tags:
            self._unclaimed_since.pop(tag, None)
