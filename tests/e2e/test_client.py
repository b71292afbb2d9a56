"""The Python client against a real `sediment serve` (standalone, its worker consuming
from real Redis), directly and through a proxy that answers 503 before passing
requests on: a retried retain is one event."""

import asyncio
import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
import redis

from contracts.recall import RecallRequest, RecallResponse
from sediment.api.compact import Recalled
from sediment.client import (
    AsyncSedimentClient,
    AuthError,
    NotFound,
    Retry,
    SedimentClient,
    ValidationFailed,
    item,
)
from tests.e2e.test_http import Server, eventually, running
from tests.helpers import redis_url

REDIS_URL = redis_url(15)
TOKEN = "client-e2e-token"
FAST = Retry(attempts=4, backoff_s=0.05, jitter=0.0)


def at(month: int) -> datetime:
    return datetime(2024, month, 1, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = redis.Redis.from_url(REDIS_URL)
    try:
        db.ping()
    except redis.ConnectionError:
        pytest.fail("the client e2e tests need Redis on 127.0.0.1:6379 (.ci/run starts it)")
    db.flushdb()
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_REDIS_URL": REDIS_URL,
        "SEDIMENT_QUEUE": f"sediment-client-{uuid.uuid4().hex[:8]}",
        "SEDIMENT_API_TOKEN": TOKEN,
        "SEDIMENT_MAX_TEXT_BYTES": "256",
    }
    with running(env, tmp_path_factory.mktemp("client")) as srv:
        yield srv
    db.flushdb()


@pytest.fixture
def memory(server: Server) -> Iterator[SedimentClient]:
    with SedimentClient(server.url, token=TOKEN, bank="people", retry=FAST) as client:
        yield client


def top(client: SedimentClient, query: str, bank: str | None = None) -> list[str]:
    return [r.text for r in client.recall(query, bank=bank).results]


def test_retain_then_recall_returns_the_current_state(memory: SedimentClient) -> None:
    first = memory.retain("Alice lives in Boston.", key="alice.city", occurred_at=at(1))
    memory.retain_many([item("Alice moved to Seattle.", at(6), key="alice.city")])
    assert len(first.event_ids) == 1
    eventually(
        lambda: top(memory, "Where does Alice live?")[:1] == ["Alice moved to Seattle."],
        "the update to be consolidated",
    )
    full = memory.recall("Where does Alice live?", history=True, limit=5, full=True)
    assert isinstance(full, RecallResponse)
    response = memory.recall("Where does Alice live?", history=True, limit=5)
    assert isinstance(response, Recalled), "compact by default"
    states = {r.text: r.state for r in response.results}
    assert states["Alice lives in Boston."] == "superseded"
    seattle = next(r for r in response.results if r.text == "Alice moved to Seattle.")
    assert len(seattle.id) == 6 and seattle.superseded_by is None
    boston = next(r for r in response.results if r.text == "Alice lives in Boston.")
    assert boston.superseded_by == seattle.id
    assert "null" not in response.model_dump_json(exclude_none=True)
    assert response.timings is None and response.results[0].score is None
    view = memory.memory(seattle.id)
    assert [s.text for s in view.edges.supersedes] == ["Alice lives in Boston."]
    assert memory.feedback(seattle.id, "up").event_id
    explained = memory.recall("Where does Alice live?", explain=True, limit=1)
    assert explained.timings and explained.results[0].score is not None


def test_errors_raise_their_exception(server: Server, memory: SedimentClient) -> None:
    with (
        SedimentClient(server.url, token="wrong", bank="people") as intruder,
        pytest.raises(AuthError) as refused,
    ):
        intruder.recall("Alice")
    assert refused.value.status == 401 and "bearer token" in str(refused.value)
    with pytest.raises(NotFound, match="no memory"):
        memory.memory(uuid.UUID(int=5))
    with pytest.raises(ValidationFailed) as invalid:
        memory.retain("x" * 300, occurred_at=at(1))
    assert invalid.value.status == 422
    assert [d.field for d in invalid.value.detail] == ["body.items.0.text"]
    assert "SEDIMENT_MAX_TEXT_BYTES" in str(invalid.value)


def test_banks_are_isolated(memory: SedimentClient) -> None:
    memory.retain("Bob likes green tea.", bank="tea", occurred_at=at(2))
    eventually(lambda: top(memory, "Bob tea", "tea") == ["Bob likes green tea."], "Bob's tea")
    assert not any("Bob" in t for t in top(memory, "Bob tea", "coffee"))


def test_the_async_client(server: Server) -> None:
    async def run() -> tuple[str, list[str]]:
        async with AsyncSedimentClient(server.url, token=TOKEN, bank="async") as client:
            await client.retain("Carol plays the oboe.", occurred_at=at(3))
            health = await client.health()
            for _ in range(300):
                found = await client.recall(RecallRequest(query="Carol oboe", limit=3))
                if found.results:
                    return health.store, [r.text for r in found.results]
                await asyncio.sleep(0.2)
            return health.store, []

    store, texts = asyncio.run(run())
    assert store == "ok" and texts == ["Carol plays the oboe."]


@contextmanager
def flaky_proxy(target: str, refusals: int) -> Iterator[tuple[str, list[bytes]]]:
    """Answers the first `refusals` requests 503 (Retry-After: 0), then passes each on
    to `target`; yields its URL and every request body it received."""
    bodies: list[bytes] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                bodies.append(body)
                refuse = len(bodies) <= refusals
            if refuse:
                self.answer(503, b'{"error":"unavailable","message":"busy"}', {"Retry-After": "0"})
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            passed = httpx.post(target + self.path, content=body, headers=headers, timeout=30)
            self.answer(passed.status_code, passed.content, {})

        def answer(self, code: int, body: bytes, extra: dict[str, str]) -> None:
            self.send_response(code)
            for name, value in {"Content-Type": "application/json", **extra}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            return

    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}", bodies
    finally:
        proxy.shutdown()
        proxy.server_close()


def test_a_retried_retain_is_one_event(server: Server, memory: SedimentClient) -> None:
    with (
        flaky_proxy(server.url, refusals=2) as (url, bodies),
        SedimentClient(url, token=TOKEN, bank="retries", retry=FAST) as client,
    ):
        accepted = client.retain("Dan's locker code is 4411.", occurred_at=at(4))
    assert len(bodies) == 3 and bodies[0] == bodies[1] == bodies[2]
    assert len(accepted.event_ids) == 1
    eventually(lambda: top(memory, "Dan locker code", "retries"), "Dan's locker code")
    again = memory.retain("Dan's locker code is 4411.", bank="retries", occurred_at=at(4))
    assert again.event_ids == accepted.event_ids
    assert top(memory, "Dan locker code", "retries") == ["Dan's locker code is 4411."]
