"""Heartbeats of consuming processes and the orphans of dead ones, on fakeredis: which
unacknowledged messages are put back on their queue, and when."""

import json

import fakeredis
import pytest

from worker.holders import HOLDER_PREFIX, HOLDERS_KEY, Heartbeat, Orphans, read_claims

TTL = 10.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def redis() -> fakeredis.FakeRedis:
    return fakeredis.FakeRedis()


def deliver(redis: fakeredis.FakeRedis, tag: str, at: float, indexed: bool = True) -> None:
    """What kombu's Redis transport writes when it hands a message to a consumer."""
    redis.hset("unacked", tag, json.dumps([{"body": "..."}, "sediment", "sediment"]))
    if indexed:
        redis.zadd("unacked_index", {tag: at})


def test_a_beat_names_what_the_process_holds_and_expires(redis: fakeredis.FakeRedis) -> None:
    beat = Heartbeat(redis, TTL, held=lambda: ["t2", "t1", "t1"], name="w1")
    beat.beat()
    assert json.loads(redis.get(HOLDER_PREFIX + "w1")) == ["t1", "t2"]
    assert 0 < redis.pttl(HOLDER_PREFIX + "w1") <= TTL * 1000
    assert read_claims(redis).tags == {"t1", "t2"}
    beat.stop()
    assert read_claims(redis).live == frozenset() and redis.zcard(HOLDERS_KEY) == 0


def test_messages_of_a_live_holder_are_never_orphans(redis: fakeredis.FakeRedis) -> None:
    clock = Clock()
    deliver(redis, "t1", clock.now - 600)
    Heartbeat(redis, TTL, held=lambda: ["t1"], name="w1").beat()
    orphans = Orphans(redis, TTL, clock=clock)
    for _ in range(5):
        assert orphans.find() == []
        clock.now += TTL


def test_a_dead_holders_message_is_an_orphan_at_the_second_look(
    redis: fakeredis.FakeRedis,
) -> None:
    """Unclaimed at two looks half a TTL apart, delivered over a TTL ago."""
    clock = Clock()
    deliver(redis, "t1", clock.now - 30)
    redis.zadd(HOLDERS_KEY, {"dead": clock.now - 30})
    orphans = Orphans(redis, TTL, clock=clock)
    assert orphans.find() == []
    clock.now += TTL / 2 - 0.1
    assert orphans.find() == []
    clock.now += 0.1
    assert orphans.find() == ["t1"]
    assert redis.zcard(HOLDERS_KEY) == 0, "the dead process is forgotten"
    orphans.restored(["t1"])


def test_a_fresh_delivery_is_left_to_its_holder_to_claim(redis: fakeredis.FakeRedis) -> None:
    clock = Clock()
    deliver(redis, "t1", clock.now - 1)
    orphans = Orphans(redis, TTL, clock=clock)
    assert orphans.find() == []
    clock.now += TTL / 2
    assert orphans.find() == [], "delivered under a TTL ago at the first look"
    clock.now += TTL
    assert orphans.find() == [], "the first look at which it is old enough"
    clock.now += TTL / 2
    assert orphans.find() == ["t1"]


def test_a_claim_in_between_resets_the_judgement(redis: fakeredis.FakeRedis) -> None:
    clock = Clock()
    deliver(redis, "t1", clock.now - 30)
    orphans = Orphans(redis, TTL, clock=clock)
    assert orphans.find() == []
    beat = Heartbeat(redis, TTL, held=lambda: ["t1"], name="w1")
    beat.beat()
    clock.now += TTL
    assert orphans.find() == []
    beat.stop()
    assert orphans.find() == []
    clock.now += TTL / 2
    assert orphans.find() == ["t1"]


def test_an_unacked_entry_without_its_index_is_indexed_then_restored(
    redis: fakeredis.FakeRedis,
) -> None:
    """D8: after a Redis outage one `unacked` entry had no index entry; kombu's restore
    reads the index, so it stayed forever."""
    clock = Clock()
    deliver(redis, "stale", 0, indexed=False)
    orphans = Orphans(redis, TTL, clock=clock)
    assert orphans.find() == []
    assert redis.zscore("unacked_index", "stale") == clock.now
    clock.now += TTL + 1
    assert orphans.find() == []
    clock.now += TTL / 2
    assert orphans.find() == ["stale"]
