"""Failure sorting in one place: poison to dead letters at once, transient retried with a cap."""

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import pytest
import redis
from celery.exceptions import SoftTimeLimitExceeded
from httpx import Headers
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from contracts.deadletter import DeadLetter
from contracts.events import RetainEvent
from contracts.forget import ForgetRule
from contracts.memory import derive_memory_id as memory_id
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter, MemoryStore, StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.stores.qdrant import QdrantStore
from tests.fakes import NoLocks
from worker.batching import Delivery
from worker.celery_app import PUBLISHED_AT_HEADER
from worker.consolidation.consolidator import Consolidator
from worker.deadletters import FileDeadLetters
from worker.errors import PoisonEvent, StoreUnavailable, TransientError, is_transient
from worker.heap import TrimPace
from worker.ledger import INDEX_KEY, Entry, Kind, Ledger, event_key
from worker.tasks import WorkerDeps, handle, one_argument

GOOD = {
    "event_id": "00000000-0000-0000-0000-000000000001",
    "bank_id": "b",
    "text": "Alice moved to Seattle.",
    "occurred_at": "2024-01-01T00:00:00Z",
}


@dataclass
class Requeued:
    """The messages a worker queued again: (countdown, retries, headers) each."""

    sent: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)

    def __call__(self, countdown: int, retries: int, headers: dict[str, Any]) -> None:
        self.sent.append((countdown, retries, headers))

    @property
    def countdowns(self) -> list[int]:
        return [c for c, _, _ in self.sent]


def message(payloads: list[Any], retries: int = 0, requeued: Requeued | None = None) -> Delivery:
    return Delivery(payloads, retries, 12.5, "task-1", requeued if requeued else Requeued())


class DownEmbedder(HashEmbedder):
    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        raise ConnectionError("embedding service unreachable")


def deps(
    tmp_path: Path,
    embedder: HashEmbedder | None = None,
    retry_max: int = 3,
    backoff_max: int = 60,
    ledger: Ledger | None = None,
) -> WorkerDeps:
    store = EdgeStore(tmp_path / "store")
    store.ensure_schema(64)
    consolidator = Consolidator(store, embedder or HashEmbedder(64), NoLocks())
    letters = FileDeadLetters(tmp_path / "dlq.jsonl", 100)
    return WorkerDeps(consolidator, letters, 16384, retry_max, backoff_max, ledger=ledger)


def test_poison_goes_to_dead_letters_and_the_rest_is_stored(tmp_path: Path) -> None:
    d = deps(tmp_path)
    payloads: list[Any] = [GOOD, {**GOOD, "occurred_at": "2024-01-01T00:00:00"}, "text"]
    handle([message(payloads)], "sediment.retain_batch.v1", d)
    letters = d.dead_letters.list()
    assert [le.error_class for le in letters] == ["PoisonEvent", "PoisonEvent"]
    assert "has no timezone" in letters[0].message
    event = RetainEvent.model_validate(GOOD)
    assert d.consolidator.store.count(Filter("b")) == 1
    assert event.bank_id == "b"


def test_transient_failure_retries_with_growing_capped_backoff(tmp_path: Path) -> None:
    d = deps(tmp_path, DownEmbedder(64))
    requeued = Requeued()
    for retries in range(3):
        handle([message([GOOD], retries, requeued)], "sediment.retain.v1", d)
    assert requeued.sent == [
        (2, 1, {PUBLISHED_AT_HEADER: 12.5}),
        (4, 2, {PUBLISHED_AT_HEADER: 12.5}),
        (8, 3, {PUBLISHED_AT_HEADER: 12.5}),
    ]
    assert d.dead_letters.length() == 0


def test_exhausted_retries_dead_letter_with_attempts(tmp_path: Path) -> None:
    d = deps(tmp_path, DownEmbedder(64))
    requeued = Requeued()
    handle([message([GOOD], 3, requeued)], "sediment.retain.v1", d)
    assert requeued.sent == []
    (letter,) = d.dead_letters.list()
    assert letter.attempts == 4 and letter.error_class == "ConnectionError"


def test_a_given_up_retain_a_forget_rule_covers_is_forgotten_not_dead_lettered(
    tmp_path: Path,
) -> None:
    """Accepted before a forget of its bank, every attempt failed until after it: a dead
    letter would keep its text for a replay into the bank that forgot it. A retain of
    another bank, or accepted after the forget, is dead-lettered as before."""
    d = deps(tmp_path, DownEmbedder(64))
    stones = d.consolidator.tombstones
    forgot_at = datetime.fromtimestamp(50, UTC)  # between the two messages' headers
    stones.add_rule(ForgetRule(bank_id="b", forget_event_id=uuid.uuid4(), accepted_at=forgot_at))
    other_bank = {**GOOD, "bank_id": "c"}
    later = {**GOOD, "event_id": "00000000-0000-0000-0000-000000000002"}
    handle(
        [message([GOOD, other_bank], 3), Delivery([later], 3, 100.0, "task-2")],
        "sediment.retain_batch.v1",
        d,
    )
    kept = [(le["bank_id"], le["event_id"][-1]) for le in map(payload, d.dead_letters.list())]
    assert sorted(kept) == [("b", "2"), ("c", "1")]
    doomed = memory_id("b", uuid.UUID(GOOD["event_id"]))
    assert stones.forgotten("b", [doomed]) == {doomed}
    assert stones.forgotten("c", [memory_id("c", uuid.UUID(GOOD["event_id"]))]) == set()


def payload(letter: DeadLetter) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(letter.payload)
    return body


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (ConnectionError("x"), True),
        (TimeoutError("x"), True),
        (TransientError("x"), True),
        (ValueError("x"), False),
        (KeyError("x"), False),
        (StoreUnavailable("x"), True),
        (redis.ConnectionError("x"), True),
        (redis.exceptions.BusyLoadingError("x"), True),
        (SoftTimeLimitExceeded(), True),
        (UnexpectedResponse(503, "Service Unavailable", b"", Headers()), False),
        (PoisonEvent("x"), False),
    ],
)
def test_is_transient_by_type(exc: BaseException, transient: bool) -> None:
    """The worker sorts by type only: a raw client exception is not known to it; the
    store adapter translates those (next test)."""
    assert is_transient(exc) is transient


@pytest.mark.parametrize(
    ("exc", "translated"),
    [
        (UnexpectedResponse(503, "Service Unavailable", b"", Headers()), True),
        (UnexpectedResponse(500, "Internal Server Error", b"", Headers()), True),
        (UnexpectedResponse(429, "Too Many Requests", b"", Headers()), True),
        (UnexpectedResponse(400, "Bad Request", b"", Headers()), False),
        (UnexpectedResponse(404, "Not Found", b"", Headers()), False),
        (ResponseHandlingException(OSError("reset")), True),
        (httpx.ConnectError("refused"), True),
        (ValueError("x"), False),
    ],
)
def test_qdrant_adapter_raises_store_unavailable(exc: Exception, translated: bool) -> None:
    store = QdrantStore(location=":memory:")

    def fail(*_: object, **__: object) -> None:
        raise exc

    store._client.count = fail  # type: ignore[method-assign]
    expected: type[Exception] = StoreUnavailable if translated else type(exc)
    with pytest.raises(expected):
        store.count(Filter("b"))


class Unavailable:
    """A Qdrant server answering 503 to every write (delegates reads to a real store)."""

    def __init__(self, inner: MemoryStore) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def upsert(self, points: object) -> None:
        raise StoreUnavailable("Qdrant: UnexpectedResponse: 503 overloaded")


def test_server_errors_retry_until_the_cap_then_dead_letter(tmp_path: Path) -> None:
    d = deps(tmp_path, retry_max=6, backoff_max=10)
    store = Unavailable(d.consolidator.store)
    d = replace(d, consolidator=replace(d.consolidator, store=store))
    requeued = Requeued()
    for retries in range(6):
        handle([message([GOOD], retries, requeued)], "sediment.retain.v1", d)
    assert requeued.countdowns == [2, 4, 8, 10, 10, 10]
    assert d.dead_letters.length() == 0
    handle([message([GOOD], 6, requeued)], "sediment.retain.v1", d)
    assert len(requeued.sent) == 6
    (letter,) = d.dead_letters.list()
    assert letter.error_class == "StoreUnavailable" and letter.attempts == 7


def test_a_batch_dead_letters_its_poison_once_across_retries(tmp_path: Path) -> None:
    d = deps(tmp_path, DownEmbedder(64), retry_max=2)
    naive = {**GOOD, "event_id": "00000000-0000-0000-0000-000000000002"}
    naive["occurred_at"] = "2024-01-01T00:00:00"
    payloads: list[Any] = [GOOD, naive]
    requeued = Requeued()
    for retries in range(2):
        handle([message(payloads, retries, requeued)], "sediment.retain_batch.v1", d)
    assert requeued.countdowns == [2, 4]
    assert [le.error_class for le in d.dead_letters.list()] == ["PoisonEvent"]
    handle([message(payloads, 2, requeued)], "sediment.retain_batch.v1", d)
    assert [le.error_class for le in d.dead_letters.list()] == ["PoisonEvent", "ConnectionError"]


def test_the_ledger_is_settled_when_handled_and_redated_on_retry(tmp_path: Path) -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    good = Entry(Kind.RETAIN, event_key(GOOD["bank_id"], GOOD["event_id"]), "q", dict(GOOD))
    bad_id = "00000000-0000-0000-0000-000000000009"
    bad = Entry(Kind.RETAIN, event_key(GOOD["bank_id"], bad_id), "q", {})
    ledger.record([good, bad], 100.0)
    down = deps(tmp_path / "down", DownEmbedder(64), ledger=ledger)
    poison = {**GOOD, "event_id": bad_id, "text": ""}
    requeued = Requeued()
    handle([message([GOOD, poison], 0, requeued)], "sediment.retain_batch.v1", down)
    assert requeued.countdowns == [2]
    assert ledger.size() == 1
    assert (ledger.client.zscore(INDEX_KEY, good.member) or 0) > 100.0
    up = deps(tmp_path / "up", ledger=ledger)
    handle([message([GOOD], 1)], "sediment.retain.v1", up)
    assert ledger.size() == 0


@pytest.mark.parametrize(
    ("args", "kwargs", "ok"),
    [
        ((GOOD,), {}, True),
        ((), {"payload": GOOD}, True),
        ((GOOD, GOOD), {}, False),
        ((), {}, False),
        ((GOOD,), {"extra": 1}, False),
    ],
)
def test_one_argument(args: tuple[Any, ...], kwargs: dict[str, Any], ok: bool) -> None:
    if ok:
        assert one_argument("t", "payload", args, kwargs) == GOOD
    else:
        with pytest.raises(PoisonEvent, match="exactly one argument"):
            one_argument("t", "payload", args, kwargs)


def test_each_app_runs_its_own_dependencies() -> None:
    """Two apps in one process (tests, benchmarks, a bootstrap per runtime): a task of
    the second app reaches the second app's dependencies, never the first's, and
    registering them raises no duplicate-name warning."""
    import warnings

    from worker.celery_app import FEEDBACK_TASK, CeleryConfig, make_app
    from worker.tasks import register_tasks

    reached: list[str] = []

    def deps_of(name: str) -> Any:
        def deps() -> WorkerDeps:
            reached.append(name)
            raise LookupError(name)

        return deps

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        apps = []
        for name in ("first", "second"):
            app = make_app(CeleryConfig("memory://", "q", 5, 8, 10))
            register_tasks(app, deps_of(name))
            apps.append(app)
        for app in apps:
            app.finalize()
    with pytest.raises(LookupError, match="second"):
        apps[1].tasks[FEEDBACK_TASK].run(1, 2)  # a poison message: dead-lettered via deps
    assert reached == ["second"]


def test_the_heap_is_trimmed_after_a_batch_also_a_retried_one_at_most_once_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trims: list[int] = []
    now = [100.0]
    monkeypatch.setattr("worker.tasks.release_free_memory", lambda: trims.append(1) or True)
    monkeypatch.setattr("worker.tasks.TRIM_PACE", TrimPace(1.0, clock=lambda: now[0]))
    handle([message([GOOD])], "sediment.retain.v1", deps(tmp_path / "up"))
    assert len(trims) == 1
    now[0] += 0.5
    handle([message([GOOD])], "sediment.retain.v1", deps(tmp_path / "up2"))
    assert len(trims) == 1, "a second batch within the second does not trim again"
    now[0] += 0.6
    down = deps(tmp_path / "down", DownEmbedder(64))
    requeued = Requeued()
    handle([message([GOOD], 0, requeued)], "sediment.retain.v1", down)
    assert requeued.countdowns == [2]
    assert len(trims) == 2


class RefusesText(Unavailable):
    """A store that refuses (not transiently) any write holding a point with `text`."""

    def __init__(self, inner: MemoryStore, text: str) -> None:
        super().__init__(inner)
        self._text = text

    def upsert(self, points: Sequence[StoredPoint]) -> None:  # type: ignore[override]
        if any(p.record.text == self._text for p in points):
            raise ValueError("refused")
        self._inner.upsert(points)


def event(n: int, text: str) -> dict[str, Any]:
    return {**GOOD, "event_id": f"00000000-0000-0000-0000-{n:012d}", "text": text}


def test_messages_taken_together_are_consolidated_in_one_batch(tmp_path: Path) -> None:
    d = deps(tmp_path)
    batches: list[int] = []
    store = d.consolidator.store
    real_upsert = store.upsert

    def counting(points: Sequence[StoredPoint]) -> None:
        batches.append(len(points))
        real_upsert(points)

    store.upsert = counting  # type: ignore[method-assign]
    taken = [message([event(i, f"Fact number {i} about Alice.")]) for i in range(1, 6)]
    handle(taken, "sediment.retain.v1", d)
    assert batches == [5]
    assert store.count(Filter("b")) == 5


def test_a_message_that_fails_alone_costs_no_other_message_its_events(tmp_path: Path) -> None:
    d = deps(tmp_path)
    store = RefusesText(d.consolidator.store, "This one breaks.")
    d = replace(d, consolidator=replace(d.consolidator, store=store))
    requeued = Requeued()
    taken = [
        message([event(1, "Alice moved to Seattle.")], 0, requeued),
        message([event(2, "This one breaks.")], 0, requeued),
        message([event(3, "Bob adopted a cat.")], 0, requeued),
    ]
    handle(taken, "sediment.retain.v1", d)
    (letter,) = d.dead_letters.list()
    assert letter.error_class == "ValueError" and "This one breaks." in letter.payload
    texts = {p.record.text for p in store.scroll(Filter("b"))}
    assert texts == {"Alice moved to Seattle.", "Bob adopted a cat."}
    assert requeued.sent == []


def test_a_transient_failure_queues_each_message_again_with_its_own_count(tmp_path: Path) -> None:
    d = deps(tmp_path, DownEmbedder(64), retry_max=5)
    first, third = Requeued(), Requeued()
    taken = [message([event(1, "Alice moved.")], 0, first), message([event(2, "Bob.")], 2, third)]
    handle(taken, "sediment.retain.v1", d)
    assert first.sent == [(2, 1, {PUBLISHED_AT_HEADER: 12.5})]
    assert third.sent == [(8, 3, {PUBLISHED_AT_HEADER: 12.5})]
    assert d.dead_letters.length() == 0


def test_messages_are_consolidated_in_calls_of_at_most_64_events() -> None:
    from worker.tasks import chunks

    def taken(*sizes: int) -> Any:
        return [(message([]), [object()] * n) for n in sizes]

    assert [[len(e) for _, e in c] for c in chunks(taken(1, 1, 62, 1), 64)] == [[1, 1, 62], [1]]
    assert [[len(e) for _, e in c] for c in chunks(taken(64, 64, 3), 64)] == [[64], [64], [3]]
    assert [[len(e) for _, e in c] for c in chunks(taken(100, 1), 64)] == [[100], [1]]
    assert chunks([], 64) == []
