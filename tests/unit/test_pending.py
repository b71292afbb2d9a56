"""Read-your-writes: what the redelivery ledger still owes for a bank is what recall
does not reflect yet; `wait_for` waits for given events, and the bank's status shows
its watermark."""

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import fakeredis
import pytest
from fastapi.testclient import TestClient

from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.pending import PendingWrites
from tests.unit.api_support import RecordingPublisher, seeded_runtime
from worker.ledger import Entry, Kind, Ledger, event_key

ACCEPTED_AT = 1_700_000_000.0


def owe(ledger: Ledger, bank: str, event_id: uuid.UUID, at: float = ACCEPTED_AT) -> None:
    key = event_key(bank, event_id)
    ledger.record([Entry(Kind.RETAIN, key, "q", {"bank_id": bank})], at)


def test_pending_counts_the_banks_owed_retains_only() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    first, second, other = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    owe(ledger, "b1", first)
    owe(ledger, "b1", second, ACCEPTED_AT + 5)
    owe(ledger, "b10", other)
    ledger.record([Entry(Kind.FEEDBACK, event_key("b1", uuid.uuid4()), "q", {})], ACCEPTED_AT)
    pending = PendingWrites(ledger)
    assert pending.count("b1") == 2 and pending.count("b10") == 1 and pending.count("b2") == 0
    assert pending.oldest("b1") is not None
    assert pending.oldest("b1").timestamp() == ACCEPTED_AT  # type: ignore[union-attr]
    assert pending.outstanding("b1", [first, other]) == [first]
    ledger.settle(Kind.RETAIN, [event_key("b1", first)])
    assert pending.count("b1") == 1 and pending.outstanding("b1", [first]) == []
    assert PendingWrites(None).count("b1") == 0


def test_wait_returns_once_the_events_are_handled_or_at_the_timeout() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    event = uuid.uuid4()
    owe(ledger, "b1", event)
    now = [0.0]
    slept: list[float] = []
    settle_at_three = True

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s
        if len(slept) == 3 and settle_at_three:
            ledger.settle(Kind.RETAIN, [event_key("b1", event)])

    PendingWrites(ledger, clock=lambda: now[0], sleep=sleep).wait("b1", [event], 10.0)
    assert len(slept) == 3, "stops polling as soon as the event is handled"
    owe(ledger, "b1", event)
    slept.clear()
    settle_at_three = False
    PendingWrites(ledger, clock=lambda: now[0], sleep=sleep).wait("b1", [event], 0.2)
    assert 0.2 <= sum(slept) < 0.3


@dataclass
class Served:
    client: TestClient
    ledger: Ledger


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    rt = seeded_runtime(tmp_path)
    ledger = Ledger(fakeredis.FakeRedis())
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=RecordingPublisher(),
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        pending=PendingWrites(ledger),
    )
    with TestClient(create_app(deps)) as client:
        yield Served(client, ledger)
    rt.close()


def test_recall_says_what_is_pending_and_status_shows_the_watermark(served: Served) -> None:
    before = served.client.get("/v1/banks/b1/status").json()
    assert before["pending"] == 0 and before.get("oldest_pending_at") is None
    assert before["memories"] >= 1
    event = uuid.uuid4()
    owe(served.ledger, "b1", event)
    body = {"query": "Alice", "wait_for": [str(event)], "wait_timeout_s": 0.1}
    r = served.client.post("/v1/banks/b1/recall", json=body)
    assert r.status_code == 200
    assert r.json()["pending"] == 1 and r.json()["pending_events"] == [str(event)]
    status = served.client.get("/v1/banks/b1/status").json()
    assert status["pending"] == 1
    assert status["oldest_pending_at"] == status["consolidated_through"]
    assert status["consolidated_through"].startswith("2023-11-14T22:13:20")
    served.ledger.settle(Kind.RETAIN, [event_key("b1", event)])
    done = served.client.post("/v1/banks/b1/recall", json=body).json()
    assert done["pending"] == 0 and done["pending_events"] == []
