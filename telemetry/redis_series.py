"""`RedisMetrics`: the `Metrics` port on redis-py; `ProcessMetrics`, the same on embedded
mode's fakeredis.

Key schema, all under `sediment:metrics:`; every key is EXPIREd to the retention
(SEDIMENT_METRICS_RETENTION_S) when a process first writes it in a minute:

    c:{name}:{labels}:{minute}  string  INCRBY by the count
    h:{name}:{labels}:{minute}  hash    HINCRBY `{bound}` (upper bucket bound in ms, `%g`,
                                        `inf` past the last); HINCRBYFLOAT `sum` (ms).
                                        The count is the sum of the bucket fields.
    g:{name}:{labels}           hash    HSET `value`, `ts` (Unix seconds of the sample)
    minute:{minute}             set     ids (`c:{name}:{labels}`, `h:...`) written that minute
    gauges                      set     ids (`g:{name}:{labels}`) of the gauges
    owed:{token}                string  a count owed once (`expect`), EXPIREd to the
                                        retention; gone once `incr_once` settled it

`{minute}` is Unix seconds // 60. `{labels}` is `key=value` pairs sorted by key and
joined by `,`, values percent-encoded (so `:` `,` `=` never appear raw), or `-`.

Writes are buffered per thread and sent as one pipeline (transaction=False) when
the outermost `batch()` ends; a write outside any batch is its own batch. A process
sends EXPIRE and the minute-index SADD once per key and minute (after a pipeline
that succeeded), so a steady batch is one INCRBY per counter and one HINCRBY per
touched bucket plus one HINCRBYFLOAT per histogram. A Redis failure drops that
batch with a warning: metrics never fail the work they measure. A snapshot is two
round trips: the minute indexes, then the series they list.
"""

import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

import redis
import structlog

from telemetry.metrics import BankFilter, Defer, Labels, MetricsSnapshot, bucket_bound
from telemetry.recall_logs import SLOW_STREAM
from telemetry.series_fold import (
    Fold,
    Histogram,
    checked,
    encode_labels,
    kept,
    slow_count,
    text,
)

PREFIX: Final = "sediment:metrics:"
GAUGE_INDEX: Final = PREFIX + "gauges"
SLOW_SCAN_MAX: Final = 100_000
OWED: Final = PREFIX + "owed:"

_COUNT_ONCE = """
local ttl, n, m = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local counts = {}
local all_owed = false
if ARGV[4] == '1' and n <= 1000 then
  all_owed = redis.call('EXISTS', unpack(KEYS, 1, n)) == n
  if all_owed then
    redis.call('DEL', unpack(KEYS, 1, n))
  end
end
for i = 0, n - 1 do
  local settled = all_owed or redis.call('DEL', KEYS[i + 1]) == 1
  local j = tonumber(ARGV[3 * i + 6])
  if settled or ARGV[3 * i + 7] == '1' then
    j = tonumber(ARGV[3 * i + 5])
  end
  counts[j] = (counts[j] or 0) + 1
end
for j = 1, m do
  local c = counts[j]
  if c then
    local key, index = KEYS[n + j], KEYS[n + m + j]
    redis.call('INCRBY', key, c)
    redis.call('EXPIRE', key, ttl)
    redis.call('SADD', index, ARGV[4 + 3 * n + j])
    redis.call('EXPIRE', index, ttl)
  end
end
return n
"""
"""KEYS: the n owed tokens, the m counters they may go to, each counter's minute index.
ARGV: the TTL, n, m, '1' if the n tokens are distinct; per token the index (1-based)
of its first counter, of its again counter and force ('1' or '0'); per counter its
series id. A batch whose tokens are distinct and all owed (the usual one: each event
stored once) settles them in two calls, and each counter is written once however many
tokens it counts, so the script's cost hardly grows with the batch."""

log = structlog.get_logger("sediment.metrics")


def minute_key(minute: int) -> str:
    return f"{PREFIX}minute:{minute}"


@dataclass(frozen=True)
class _Once:
    token: str
    first_sid: str
    again_sid: str
    minute: int
    force: bool


@dataclass
class _Pending:
    counters: Counter[tuple[str, int]] = field(default_factory=Counter)
    hists: dict[tuple[str, int], Histogram] = field(default_factory=dict)
    gauges: dict[str, tuple[float, float]] = field(default_factory=dict)
    once: list[_Once] = field(default_factory=list)
    depth: int = 0

    def take(self) -> "_Pending":
        taken = _Pending(self.counters, self.hists, self.gauges, self.once)
        self.counters, self.hists, self.gauges, self.once = Counter(), {}, {}, []
        return taken

    def absorb(self, other: "_Pending") -> None:
        """Add `other`'s writes to these: counts and histograms add up, the later
        sample of a gauge wins, once-counts are kept in order."""
        self.counters.update(other.counters)
        for key, h in other.hists.items():
            mine = self.hists.get(key)
            if mine is None:
                self.hists[key] = Histogram(Counter(h.buckets), h.total)
            else:
                mine.buckets.update(h.buckets)
                mine.total += h.total
        for sid, sample in other.gauges.items():
            if sid not in self.gauges or self.gauges[sid][1] <= sample[1]:
                self.gauges[sid] = sample
        self.once.extend(other.once)


class DeferredFlush:
    """A batch's writes handed to `defer`: calling it sends them in one pipeline;
    `absorb` takes another batch's writes into this send (see `merged`)."""

    def __init__(self, metrics: "RedisMetrics", pending: _Pending) -> None:
        self._metrics = metrics
        self._pending = pending

    def __call__(self) -> None:
        self._metrics._flush(self._pending)

    def absorb(self, other: object) -> bool:
        if not isinstance(other, DeferredFlush) or other._metrics is not self._metrics:
            return False
        self._pending.absorb(other._pending)
        return True


class RedisMetrics:
    """Thread-safe: each thread has its own buffer; the client's pool is shared."""

    def __init__(
        self, client: redis.Redis, retention_s: int, clock: Callable[[], float] = time.time
    ) -> None:
        self._client = client
        self._ttl = retention_s
        self._clock = clock
        self._local = threading.local()
        self._ready: dict[int, set[str]] = {}
        self._ready_lock = threading.Lock()
        self._count_once = client.register_script(_COUNT_ONCE)

    def _pending(self) -> _Pending:
        pending: _Pending | None = getattr(self._local, "pending", None)
        if pending is None:
            pending = self._local.pending = _Pending()
        return pending

    def _minute(self) -> int:
        return int(self._clock() // 60)

    @contextmanager
    def batch(self, defer: Defer | None = None) -> Iterator[None]:
        pending = self._pending()
        pending.depth += 1
        try:
            yield
        finally:
            pending.depth -= 1
            if pending.depth == 0:
                flush = DeferredFlush(self, pending.take())
                if defer is None:
                    flush()
                else:
                    defer(flush)

    def _done(self, pending: _Pending) -> None:
        if pending.depth == 0:
            self._flush(pending.take())

    def incr(self, name: str, n: int = 1, labels: Labels | None = None) -> None:
        pending = self._pending()
        sid = f"c:{checked(name)}:{encode_labels(labels)}"
        pending.counters[(sid, self._minute())] += n
        self._done(pending)

    def observe(self, name: str, value_ms: float, labels: Labels | None = None) -> None:
        pending = self._pending()
        sid = f"h:{checked(name)}:{encode_labels(labels)}"
        hist = pending.hists.get((sid, self._minute()))
        if hist is None:
            hist = pending.hists[(sid, self._minute())] = Histogram()
        hist.buckets[bucket_bound(value_ms)] += 1
        hist.total += value_ms
        self._done(pending)

    def gauge(self, name: str, value: float, labels: Labels | None = None) -> None:
        pending = self._pending()
        sid = f"g:{checked(name)}:{encode_labels(labels)}"
        pending.gauges[sid] = (float(value), self._clock())
        self._done(pending)

    def expect(self, tokens: Sequence[str]) -> bool:
        if not tokens:
            return True
        pipe = self._client.pipeline(transaction=False)
        for token in tokens:
            pipe.set(OWED + token, 1, ex=self._ttl)
        try:
            pipe.execute()
        except (redis.RedisError, OSError) as exc:
            log.warning("metrics_expect_failed", error_class=type(exc).__name__)
            return False
        return True

    def incr_once(
        self, name: str, token: str, first: Labels, again: Labels, force: bool = False
    ) -> None:
        pending = self._pending()
        first_sid = f"c:{checked(name)}:{encode_labels(first)}"
        again_sid = f"c:{checked(name)}:{encode_labels(again)}"
        pending.once.append(_Once(token, first_sid, again_sid, self._minute(), force))
        self._done(pending)

    def _flush(self, p: _Pending) -> None:
        if not (p.counters or p.hists or p.gauges or p.once):
            return
        pipe = self._client.pipeline(transaction=False)
        if p.once:
            keys, args = self._once_call(p.once)
            self._count_once(keys=keys, args=args, client=pipe)
        for (sid, minute), n in p.counters.items():
            pipe.incrby(f"{PREFIX}{sid}:{minute}", n)
        for (sid, minute), h in p.hists.items():
            key = f"{PREFIX}{sid}:{minute}"
            for bound, n in h.buckets.items():
                pipe.hincrby(key, f"{bound:g}", n)
            pipe.hincrbyfloat(key, "sum", h.total)
        new = self._new_series([*p.counters, *p.hists])
        for minute, sids in new.items():
            for sid in sids:
                pipe.expire(f"{PREFIX}{sid}:{minute}", self._ttl)
            pipe.sadd(minute_key(minute), *sids)
            pipe.expire(minute_key(minute), self._ttl)
        for sid, (value, ts) in p.gauges.items():
            pipe.hset(f"{PREFIX}{sid}", mapping={"value": repr(value), "ts": repr(ts)})
            pipe.expire(f"{PREFIX}{sid}", self._ttl)
        if p.gauges:
            pipe.sadd(GAUGE_INDEX, *p.gauges)
            pipe.expire(GAUGE_INDEX, self._ttl)
        try:
            pipe.execute()
        except (redis.RedisError, OSError) as exc:
            log.warning("metrics_dropped", error_class=type(exc).__name__)
            return
        with self._ready_lock:
            for minute, sids in new.items():
                self._ready.setdefault(minute, set()).update(sids)

    def _once_call(self, items: list[_Once]) -> tuple[list[str], list[str | int]]:
        counters: dict[tuple[str, int], int] = {}
        for o in items:
            for sid in (o.first_sid, o.again_sid):
                counters.setdefault((sid, o.minute), len(counters) + 1)
        tokens = [OWED + o.token for o in items]
        distinct = len(set(tokens)) == len(tokens)
        args: list[str | int] = [self._ttl, len(items), len(counters), "1" if distinct else "0"]
        for o in items:
            first, again = counters[(o.first_sid, o.minute)], counters[(o.again_sid, o.minute)]
            args += [first, again, "1" if o.force else "0"]
        args += [sid for sid, _ in counters]
        keys = tokens + [f"{PREFIX}{sid}:{minute}" for sid, minute in counters]
        keys += [minute_key(minute) for _, minute in counters]
        return keys, args

    def _new_series(self, written: list[tuple[str, int]]) -> dict[int, set[str]]:
        """Series not yet given their TTL and index entry by this process this minute."""
        new: defaultdict[int, set[str]] = defaultdict(set)
        if not written:
            return new
        latest = max(minute for _, minute in written)
        with self._ready_lock:
            for old in [m for m in self._ready if m < latest - 1]:
                del self._ready[old]
            for sid, minute in written:
                if sid not in self._ready.get(minute, ()):
                    new[minute].add(sid)
        return new

    def snapshot(
        self, minutes: int, bank: str | None = None, among: BankFilter | None = None
    ) -> MetricsSnapshot:
        if minutes < 1:
            raise ValueError("minutes must be at least 1")
        now = self._clock()
        first = int(now // 60) - minutes + 1
        pipe = self._client.pipeline(transaction=False)
        for m in range(first, first + minutes):
            pipe.smembers(minute_key(m))
        pipe.smembers(GAUGE_INDEX)
        pipe.xrange(SLOW_STREAM, min=str(first * 60_000), max="+", count=SLOW_SCAN_MAX)
        *indexes, gauge_ids, slow = pipe.execute()
        wanted = [
            (sid, first + i)
            for i, ids in enumerate(indexes)
            for sid in sorted(text(x) for x in ids)
            if kept(sid, bank, among)
        ]
        gauges = sorted(g for g in (text(x) for x in gauge_ids) if kept(g, bank, among))
        pipe = self._client.pipeline(transaction=False)
        for sid, minute in wanted:
            key = f"{PREFIX}{sid}:{minute}"
            if sid.startswith("c:"):
                pipe.get(key)
            else:
                pipe.hgetall(key)
        for gid in gauges:
            pipe.hgetall(PREFIX + gid)
        values = pipe.execute()
        window_s = max(1.0, (minutes - 1) * 60 + now % 60)
        agg = Fold(first, minutes, window_s)
        for (sid, minute), value in zip(wanted, values, strict=False):
            agg.add(sid, minute, value)
        stale = [gid for gid, v in zip(gauges, values[len(wanted) :], strict=True) if not v]
        for gid, value in zip(gauges, values[len(wanted) :], strict=True):
            agg.add_gauge(gid, value)
        if stale:
            self._client.srem(GAUGE_INDEX, *stale)
        at = datetime.fromtimestamp(now, UTC)
        return agg.snapshot(at, bank, slow_count(slow, bank, among))


class ProcessMetrics(RedisMetrics):
    """`RedisMetrics` for the only process that writes its Redis: embedded mode's
    in-process stand-in, which lives and dies with the process. The counts `expect`
    owes are kept here and `incr_once` settles them here, by the rules of the
    script above (a token is settled once, within the retention; `force` counts it
    first anyway), so a consolidation batch sends its counts without the owed keys'
    round trip and the script. The same counts as `RedisMetrics` gives
    (tests/unit/test_metrics.py runs one beside the other)."""

    def __init__(
        self,
        client: redis.Redis,
        retention_s: int,
        clock: Callable[[], float] = time.time,
        expiry_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(client, retention_s, clock)
        self._expiry_clock = expiry_clock
        self._owed: dict[str, float] = {}
        """token -> when it stops being owed, in the order `expect` last set them."""
        self._owed_lock = threading.Lock()

    def expect(self, tokens: Sequence[str]) -> bool:
        now = self._expiry_clock()
        with self._owed_lock:
            for token in tokens:
                self._owed.pop(token, None)
                self._owed[token] = now + self._ttl
            while self._owed:
                first = next(iter(self._owed))
                if self._owed[first] > now:
                    break
                del self._owed[first]
        return True

    def _flush(self, p: _Pending) -> None:
        if p.once:
            now = self._expiry_clock()
            with self._owed_lock:
                for o in p.once:
                    until = self._owed.pop(o.token, None)
                    settled = until is not None and until > now
                    sid = o.first_sid if settled or o.force else o.again_sid
                    p.counters[(sid, o.minute)] += 1
            p.once = []
        super()._flush(p)
