"""One suite for every DeadLetters adapter: real Redis, the in-process stand-in, and the file."""

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import fakeredis
import pytest
import redis

from contracts.deadletter import DeadLetter
from tests.helpers import redis_url
from worker.deadletters import (
    DEFAULT_MAX_PAYLOAD_BYTES,
    DeadLetters,
    FileDeadLetters,
    RedisDeadLetters,
    capped,
)

NOW = datetime(2024, 1, 1, tzinfo=UTC)


def letter(i: int) -> DeadLetter:
    return DeadLetter(
        task="sediment.retain.v1",
        payload=f'{{"n": {i}}}',
        error_class="PoisonEvent",
        message=f"reason {i}",
        attempts=1,
        first_seen=NOW,
        last_seen=NOW,
    )


@pytest.fixture(params=["redis", "fakeredis", "file"])
def dlq(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DeadLetters]:
    if request.param == "file":
        yield FileDeadLetters(tmp_path / "dlq.jsonl", maxlen=50)
        return
    if request.param == "fakeredis":
        client = fakeredis.FakeRedis()
    else:
        client = redis.Redis.from_url(redis_url(12))
        try:
            client.ping()
        except redis.ConnectionError:
            pytest.fail("needs Redis on 127.0.0.1:6379 (.ci/run starts it)")
    client.delete("sediment:dlq:test")
    yield RedisDeadLetters(client, maxlen=50, stream="sediment:dlq:test")
    client.delete("sediment:dlq:test")


def test_add_list_remove_in_order(dlq: DeadLetters) -> None:
    ids = [dlq.add(letter(i)) for i in range(3)]
    listed = dlq.list()
    assert [le.id for le in listed] == ids
    assert [le.message for le in listed] == ["reason 0", "reason 1", "reason 2"]
    assert listed[0].payload == '{"n": 0}'
    assert dlq.remove([ids[1]]) == 1
    assert [le.message for le in dlq.list()] == ["reason 0", "reason 2"]
    assert dlq.length() == 2


def test_capped_keeps_the_newest(dlq: DeadLetters) -> None:
    for i in range(400):
        dlq.add(letter(i))
    assert 50 <= dlq.length() < 400
    assert dlq.list(1000)[-1].message == "reason 399"


def test_list_limit(dlq: DeadLetters) -> None:
    for i in range(5):
        dlq.add(letter(i))
    assert len(dlq.list(2)) == 2


def test_a_huge_payload_is_kept_as_a_preview_its_size_and_hash(dlq: DeadLetters) -> None:
    """D1: one 20 MB poison batch made a 21 MB entry; every adapter caps it now."""
    payload = json.dumps([{"text": "é" * 1000 + str(i)} for i in range(2000)])
    whole = payload.encode("utf-8")
    dlq.add(letter(0).model_copy(update={"payload": payload, "message": "m" * 4000}))
    dlq.add(letter(1))
    big, small = dlq.list()
    assert len(big.model_dump_json().encode("utf-8")) <= DEFAULT_MAX_PAYLOAD_BYTES
    assert big.truncated and big.payload_bytes == len(whole) > 100 * DEFAULT_MAX_PAYLOAD_BYTES
    assert big.payload_sha256 == hashlib.sha256(whole).hexdigest()
    assert payload.startswith(big.payload) and len(big.payload) > DEFAULT_MAX_PAYLOAD_BYTES // 4
    assert big.message.startswith("mmm")
    assert not small.truncated and small.payload == '{"n": 1}' and small.payload_bytes == 8


@pytest.mark.parametrize("cap", [4096, 10_000, 65_536])
def test_capped_fits_any_cap_and_cuts_between_characters(cap: int) -> None:
    payload = "\x01\u00e9\U0001f600" * 50_000
    out = capped(letter(0).model_copy(update={"payload": payload, "message": "é" * 4000}), cap)
    assert len(out.model_dump_json().encode("utf-8")) <= cap
    assert out.truncated and payload.startswith(out.payload) and out.payload
