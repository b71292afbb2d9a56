"""Shared by the API unit tests: an embedded runtime with seeded banks, a recording
publisher, and a TestClient over the real app. The runtime's Celery app is never
built: each Celery app registers its tasks for every later app in the process."""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fastapi.testclient import TestClient
from pydantic import SecretStr

from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from contracts.forget import ForgetEvent
from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.bootstrap import Runtime, bootstrap
from sediment.retain import PublishError
from sediment.settings import Settings
from tests.helpers import event, mid
from worker.consolidation.consolidator import consolidate

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

BOSTON = event("Alice lives in Boston.", 0, key="alice.city", entities=["Alice"])
SEATTLE = event("Alice lives in Seattle.", 20, key="alice.city", entities=["Alice"])
CELLO_1 = event("Bob plays the cello in an orchestra.", 1, entities=["Bob"])
CELLO_2 = event("Bob plays the cello in an orchestra.", 2, entities=["Bob"])
LISBON = event("Carol lives in Lisbon.", 3, bank="b2", entities=["Carol"])
SEEDED = [BOSTON, SEATTLE, CELLO_1, CELLO_2, LISBON]


@dataclass
class RecordingPublisher:
    """Keeps what the API published; `failing` makes every publish raise like a dead broker."""

    retained: list[RetainEvent] = field(default_factory=list)
    feedback: list[FeedbackEvent] = field(default_factory=list)
    forgets: list[ForgetEvent] = field(default_factory=list)
    failing: bool = False
    queued: bool = True

    def publish_retain(self, events: Sequence[RetainEvent]) -> int:
        if self.failing:
            raise PublishError("ConnectionError")
        self.retained.extend(events)
        return len(events)

    def publish_feedback(self, events: Sequence[FeedbackEvent]) -> None:
        if self.failing:
            raise PublishError("ConnectionError")
        self.feedback.extend(events)

    def publish_forget(self, events: Sequence[ForgetEvent]) -> int:
        if self.failing:
            raise PublishError("ConnectionError")
        self.forgets.extend(events)
        return len(events)

    def broker_ok(self) -> bool:
        return not self.failing


@dataclass
class Api:
    rt: Runtime
    publisher: RecordingPublisher
    client: TestClient


def seeded_runtime(tmp_path: Path, **overrides: object) -> Runtime:
    settings = Settings(
        mode="embedded",
        data_dir=tmp_path / "data",
        embedder="hash",
        **overrides,  # type: ignore[arg-type]
    )
    rt = bootstrap(settings)
    consolidate(SEEDED, rt.consolidator)
    return rt


def open_api(tmp_path: Path, token: str | None = None, **overrides: object) -> Iterator[Api]:
    rt = seeded_runtime(tmp_path, **overrides)
    publisher = RecordingPublisher()
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=publisher,
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_token=SecretStr(token) if token else None,
        health={
            "store": lambda: rt.store.info() is not None,
            "redis": lambda: bool(rt.redis.ping()),
            "broker": publisher.broker_ok,
        },
    )
    with TestClient(create_app(deps), headers=AUTH if token else {}) as client:
        yield Api(rt, publisher, client)
    rt.close()


__all__ = ["AUTH", "SEEDED", "TOKEN", "Api", "mid", "open_api"]
