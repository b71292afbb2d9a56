"""The redelivery ledger: every event published through `worker.publish`, kept until a
worker has durably handled it (consolidated, counted, or dead-lettered).

Why it exists: kombu's Redis transport delivers in two steps, BRPOP off the queue list
and then a write to the `unacked` hash. A worker killed between the two loses the
message: it is in neither place, so neither the visibility timeout nor a restart brings
it back. The ledger is Sediment's own record of what is owed; the sweeper
(worker/sweeper.py) publishes again what is provably neither queued nor in flight.

Layout, in the broker's Redis database:

    sediment:ledger        hash  "<kind>:<bank>/<event_id>" -> {"queue", "payload", "republished",
                                 "accepted_at"}
    sediment:ledger:index  zset  the same member -> Unix seconds of its latest publish
    sediment:ledger:accepted:{bank}  zset  a retain's event id -> Unix seconds of its
                                 acceptance (its first publish), while it is owed

A retain's acceptance time is the publish header (`sediment_published_at`) of its
first publish. Every redelivery keeps it: a retry carries the header along, kombu's
restore puts the message back as it was, and the sweeper republishes with the
`accepted_at` kept in the entry. A forget rule reads it (worker/forget_rules.py); the
per-bank `accepted` index says how old the oldest retain still owed is, which is what
lets old rules be pruned.
"""

import json
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

import redis
from celery import Celery

LEDGER_KEY = "sediment:ledger"
INDEX_KEY = "sediment:ledger:index"
ACCEPTED_KEY = "sediment:ledger:accepted:{bank}"

_CLAIM = """
local score = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  if ARGV[5] ~= '' then redis.call('ZREM', KEYS[3], ARGV[5]) end
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  if ARGV[5] ~= '' then redis.call('ZADD', KEYS[3], 'LT', ARGV[6], ARGV[5]) end
end
return 1
"""
_DROP_ORPHANS = """
for _, name in ipairs(ARGV) do
  if redis.call('HEXISTS', KEYS[1], name) == 0 then redis.call('ZREM', KEYS[2], name) end
end
return 0
"""
_OLDEST = """
for _ = 1, 1000 do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if #first == 0 then return false end
  if redis.call('HEXISTS', KEYS[1], ARGV[1] .. first[1]) == 1 then return first[2] end
  redis.call('ZREM', KEYS[2], first[1])
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if #first == 0 then return false end
return first[2]
"""


class Kind(StrEnum):
    RETAIN = "retain"
    FEEDBACK = "feedback"
    FORGET = "forget"


def event_key(bank_id: object, event_id: object) -> str:
    """An event's name in the ledger: its bank and its id, since two banks may use the
    same event id (bank ids never contain "/")."""
    return f"{bank_id}/{event_id}"


def payload_key(payload: object) -> str | None:
    """`event_key` of a payload as sent, parsed or not; None without an event id."""
    if not isinstance(payload, dict) or not isinstance(payload.get("event_id"), str):
        return None
    return event_key(payload.get("bank_id"), payload["event_id"])


def member(kind: Kind, key: object) -> str:
    return f"{kind.value}:{key}"


def split_key(key: object) -> tuple[str, str]:
    """(bank id, event id) of an `event_key`."""
    bank, _, event_id = str(key).partition("/")
    return bank, event_id


def accepted_key(bank_id: str) -> str:
    return ACCEPTED_KEY.format(bank=bank_id)


@dataclass(frozen=True)
class Entry:
    """What a worker still owes for one event, enough to publish it again with the time
    it was first accepted (`accepted_at`, Unix seconds; None in an entry written before
    Sediment kept it)."""

    kind: Kind
    key: str
    queue: str
    payload: dict[str, object]
    republished: int = 0
    accepted_at: float | None = None

    @property
    def member(self) -> str:
        return member(self.kind, self.key)

    def dumps(self) -> str:
        body: dict[str, object] = {
            "queue": self.queue,
            "payload": self.payload,
            "republished": self.republished,
        }
        if self.accepted_at is not None:
            body["accepted_at"] = self.accepted_at
        return json.dumps(body, sort_keys=True, separators=(",", ":"))

    @classmethod
    def loads(cls, name: str, raw: bytes | str) -> "Entry":
        kind, _, key = name.partition(":")
        body = json.loads(raw)
        at = body.get("accepted_at")
        accepted = float(at) if isinstance(at, int | float) else None
        return cls(
            Kind(kind), key, body["queue"], body["payload"], int(body["republished"]), accepted
        )


class Ledger:
    """The ledger's writes; every one is a single MULTI so the hash and index agree."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._claim = client.register_script(_CLAIM)
        self._drop_orphans = client.register_script(_DROP_ORPHANS)
        self._oldest = client.register_script(_OLDEST)

    def record(self, entries: Sequence[Entry], at: float) -> None:
        """Before the messages are sent: an entry whose send fails is settled again. A
        retain's acceptance (its entry's `accepted_at`, else `at`) goes in its bank's
        `accepted` index, where an earlier acceptance of the same event wins."""
        if not entries:
            return
        accepted: dict[str, dict[str, float]] = {}
        for e in entries:
            if e.kind is Kind.RETAIN:
                bank, event_id = split_key(e.key)
                when = e.accepted_at if e.accepted_at is not None else at
                accepted.setdefault(bank, {})[event_id] = when
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(LEDGER_KEY, mapping={e.member: e.dumps() for e in entries})
            pipe.zadd(INDEX_KEY, {e.member: at for e in entries})
            for bank, times in accepted.items():
                pipe.zadd(accepted_key(bank), times, lt=True)
            pipe.execute()

    def settle(self, kind: Kind, keys: Iterable[object]) -> None:
        """The events (by `event_key`) are handled for good: nothing is owed any more."""
        keys = list(keys)
        names = [member(kind, e) for e in keys]
        if not names:
            return
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hdel(LEDGER_KEY, *names)
            pipe.zrem(INDEX_KEY, *names)
            if kind is Kind.RETAIN:
                for bank, event_ids in _by_bank(keys).items():
                    pipe.zrem(accepted_key(bank), *event_ids)
            pipe.execute()

    def oldest_accepted(self, bank_id: str) -> float | None:
        """When the oldest retain of the bank still owed was accepted (Unix seconds);
        None when none is owed. An index entry whose ledger entry is gone (left by an
        interrupted settle of an earlier version) is dropped on the way."""
        prefix = member(Kind.RETAIN, event_key(bank_id, ""))
        found = self._oldest(keys=[LEDGER_KEY, accepted_key(bank_id)], args=[prefix])
        return float(found) if found is not None else None

    def touch(self, kind: Kind, keys: Iterable[object], at: float) -> None:
        """A retry message was published at `at`: the events (by `event_key`) are queued
        again from then."""
        names = [member(kind, e) for e in keys]
        if names:
            self.client.zadd(INDEX_KEY, dict.fromkeys(names, at), xx=True)

    def claim(self, entry: Entry, seen_score: float, at: float, replacement: Entry | None) -> bool:
        """Replace (or, with None, drop) an entry only if its index score is still the one
        the sweeper judged: a publish, retry or settle since then wins. A retain's
        acceptance stays in its bank's `accepted` index while it is replaced, and leaves
        it when it is dropped."""
        value = replacement.dumps() if replacement is not None else ""
        bank, event_id = split_key(entry.key)
        retain = event_id if entry.kind is Kind.RETAIN else ""
        kept = replacement.accepted_at if replacement is not None else None
        accepted = repr(kept if kept is not None else seen_score)
        done = self._claim(
            keys=[LEDGER_KEY, INDEX_KEY, accepted_key(bank)],
            args=[entry.member, repr(seen_score), repr(at), value, retain, accepted],
        )
        return bool(done)

    def older_than(self, before: float, limit: int) -> list[str]:
        """Members last published before `before`, oldest first."""
        names = self.client.zrangebyscore(INDEX_KEY, "-inf", before, start=0, num=limit)
        return [n.decode() if isinstance(n, bytes) else str(n) for n in names]

    def entries(self, names: Sequence[str]) -> dict[str, Entry]:
        if not names:
            return {}
        values = self.client.hmget(LEDGER_KEY, list(names))
        found = {n: Entry.loads(n, v) for n, v in zip(names, values, strict=True) if v is not None}
        orphans = [n for n in names if n not in found]
        if orphans:
            self._drop_orphans(keys=[LEDGER_KEY, INDEX_KEY], args=orphans)
        return found

    def size(self) -> int:
        return int(self.client.hlen(LEDGER_KEY))

    def pending(self, kind: Kind, bank_id: str) -> dict[str, float]:
        """The bank's events of `kind` still owed, by event id, with when each was last
        published (Unix seconds). A scan over the ledger, which holds only what is in
        flight; bank ids hold no glob characters."""
        prefix = member(kind, event_key(bank_id, ""))
        names = self._names(prefix)
        if not names:
            return {}
        scores = self.client.zmscore(INDEX_KEY, names)
        return {
            n.removeprefix(prefix): float(s if s is not None else 0.0)
            for n, s in zip(names, scores, strict=True)
        }

    def pending_count(self, kind: Kind, bank_id: str) -> int:
        """How many of the bank's events of `kind` are still owed: `pending` without the
        publish times (what every recall reports, so one scan and nothing more)."""
        return len(self._names(member(kind, event_key(bank_id, ""))))

    def _names(self, prefix: str) -> list[str]:
        found = self.client.hscan_iter(LEDGER_KEY, match=prefix + "*", count=500)
        return [_text(n) for n, _ in found]

    def owed(self, kind: Kind, bank_id: str, event_ids: Sequence[object]) -> list[bool]:
        """For each event, whether the ledger still owes it (published, not yet handled)."""
        if not event_ids:
            return []
        with self.client.pipeline(transaction=False) as pipe:
            for e in event_ids:
                pipe.hexists(LEDGER_KEY, member(kind, event_key(bank_id, e)))
            return [bool(x) for x in pipe.execute()]


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _by_bank(keys: Iterable[object]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key in keys:
        bank, event_id = split_key(key)
        out.setdefault(bank, []).append(event_id)
    return out


_BY_APP: "weakref.WeakKeyDictionary[Celery, Ledger | None]" = weakref.WeakKeyDictionary()


def ledger_for(app: Celery) -> Ledger | None:
    """The ledger in the app's broker database, or None when the broker is not Redis
    (Celery's in-memory transport dies with its process; nothing could be redelivered)."""
    if app not in _BY_APP:
        url = str(app.conf.broker_url or "").split(";")[0].strip()
        scheme = urlsplit(url).scheme
        _BY_APP[app] = Ledger(redis.Redis.from_url(url)) if scheme in ("redis", "rediss") else None
    return _BY_APP[app]
