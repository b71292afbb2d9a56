"""Failure sorting in one place: poison to dead letters at once, transient retried with a cap."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from contracts.events import RetainEvent
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from worker.consolidation.service import Consolidator
from worker.deadletters import FileDeadLetters
from worker.errors import TransientError, is_transient
from worker.tasks import WorkerDeps, handle

GOOD = {
    "event_id": "00000000-0000-0000-0000-000000000001",
    "bank_id": "b",
    "text": "Alice moved to Seattle.",
    "occurred_at": "2024-01-01T00:00:00Z",
}


class Retry(Exception):
    pass


@dataclass
class Request:
    retries: int = 0


@dataclass
class TaskDouble:
    """What `handle` uses of a bound Celery task: its retry count and `retry`."""

    request: Request = field(default_factory=Request)
    countdowns: list[float] = field(default_factory=list)

    def retry(self, exc: BaseException, countdown: float, max_retries: int) -> Retry:
        self.countdowns.append(countdown)
        return Retry()


class DownEmbedder(HashEmbedder):
    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        raise ConnectionError("embedding service unreachable")


def deps(tmp_path: Path, embedder: HashEmbedder | None = None) -> WorkerDeps:
    store = EdgeStore(tmp_path / "store")
    store.ensure_schema(64)
    consolidator = Consolidator(store, embedder or HashEmbedder(64), NoLocks())
    return WorkerDeps(consolidator, FileDeadLetters(tmp_path / "dlq.jsonl", 100), 16384, 3, 60)


def test_poison_goes_to_dead_letters_and_the_rest_is_stored(tmp_path: Path) -> None:
    d = deps(tmp_path)
    payloads: list[Any] = [GOOD, {**GOOD, "occurred_at": "2024-01-01T00:00:00"}, "text"]
    handle(TaskDouble(), "sediment.retain_batch.v1", payloads, d)  # type: ignore[arg-type]
    letters = d.dead_letters.list()
    assert [le.error_class for le in letters] == ["PoisonEvent", "PoisonEvent"]
    assert "has no timezone" in letters[0].message
    event = RetainEvent.model_validate(GOOD)
    assert d.consolidator.store.count(Filter("b")) == 1
    assert event.bank_id == "b"


def test_transient_failure_retries_with_growing_capped_backoff(tmp_path: Path) -> None:
    d = deps(tmp_path, DownEmbedder(64))
    waits = []
    for retries in range(3):
        task = TaskDouble(Request(retries))
        with pytest.raises(Retry):
            handle(task, "sediment.retain.v1", [GOOD], d)  # type: ignore[arg-type]
        waits += task.countdowns
    assert waits == [2, 4, 8]
    assert d.dead_letters.length() == 0


def test_exhausted_retries_dead_letter_with_attempts(tmp_path: Path) -> None:
    d = deps(tmp_path, DownEmbedder(64))
    handle(TaskDouble(Request(retries=3)), "sediment.retain.v1", [GOOD], d)  # type: ignore[arg-type]
    (letter,) = d.dead_letters.list()
    assert letter.attempts == 4 and letter.error_class == "ConnectionError"


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (ConnectionError("x"), True),
        (TimeoutError("x"), True),
        (TransientError("x"), True),
        (ValueError("x"), False),
        (KeyError("x"), False),
    ],
)
def test_is_transient(exc: BaseException, transient: bool) -> None:
    assert is_transient(exc) is transient
