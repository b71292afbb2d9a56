"""The HTTP API as a client uses it: `sediment serve` in standalone mode, a real uvicorn
process with its in-process worker consuming from real Redis (DB 11)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from tests.helpers import DEFAULT_STAGES, redis_url

REDIS_URL = redis_url(11)
TOKEN = "e2e-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class Server:
    url: str
    env: dict[str, str]
    client: httpx.Client
    log: Path

    def post(self, path: str, body: object, **kw: Any) -> httpx.Response:
        return self.client.post(self.url + path, json=body, **kw)

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.client.get(self.url + path, **kw)

    def recall(self, bank: str, query: str, **kw: object) -> dict[str, Any]:
        r = self.post(f"/v1/banks/{bank}/recall", {"query": query, **kw}, headers=AUTH)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def eventually(probe: Callable[[], Any], what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout}s waiting for {what}")


@contextmanager
def running(env: dict[str, str], tmp: Path) -> Iterator[Server]:
    """`sediment serve` on a free port until the block ends; then SIGTERM and a clean stop.
    The test Redis is a throwaway database, whatever persistence the machine's Redis has,
    so the process is told it may run on a volatile one unless `env` says otherwise."""
    port = free_port()
    log = tmp / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sediment.cli", "serve", "--port", str(port)],
            env={
                "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",
                **env,
                "SEDIMENT_DATA_DIR": str(tmp / "data"),
                "SEDIMENT_LOG_FORMAT": "json",
            },
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        with httpx.Client(timeout=30) as client:
            srv = Server(f"http://127.0.0.1:{port}", env, client, log)

            def healthy() -> bool:
                assert proc.poll() is None, log.read_text()
                try:
                    return srv.get("/healthz").status_code == 200
                except httpx.TransportError:
                    return False

            eventually(healthy, "sediment serve to answer /healthz")
            yield srv
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
    assert code in (0, -signal.SIGTERM), log.read_text()
    assert '"event": "stopped"' in log.read_text()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = redis.Redis.from_url(REDIS_URL)
    try:
        db.ping()
    except redis.ConnectionError:
        pytest.fail("the HTTP e2e tests need Redis on 127.0.0.1:6379 (.ci/run starts it)")
    db.flushdb()
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",  # the test Redis is volatile
        "SEDIMENT_REDIS_URL": REDIS_URL,
        "SEDIMENT_QUEUE": f"sediment-http-{uuid.uuid4().hex[:8]}",
        "SEDIMENT_API_TOKEN": TOKEN,
        "SEDIMENT_API_MAX_BODY_BYTES": "65536",
        "SEDIMENT_RECALL_SLOW_MS": "0.01",
    }
    with running(env, tmp_path_factory.mktemp("http")) as srv:
        yield srv
    db.flushdb()


def retain(server: Server, bank: str, *items: dict[str, object]) -> list[str]:
    r = server.post(f"/v1/banks/{bank}/memories", {"items": list(items)}, headers=AUTH)
    assert r.status_code == 202, r.text
    return r.json()["event_ids"]  # type: ignore[no-any-return]


def visible(server: Server, bank: str, query: str, text: str) -> dict[str, Any]:
    def found() -> dict[str, Any] | None:
        results = server.recall(bank, query)["results"]
        return next((r for r in results if r["text"] == text), None)

    return eventually(found, f"{text!r} in bank {bank}")  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def alice(server: Server) -> dict[str, Any]:
    """Alice's current city, once the worker has consolidated all three events."""
    retain(
        server,
        "bank-a",
        {"text": "Alice lives in Boston.", "occurred_at": "2024-01-01T09:00:00Z", "key": "city"},
        {"text": "Alice moved to Seattle.", "occurred_at": "2024-06-01T09:00:00Z", "key": "city"},
        {"text": "Alice keeps bees on the roof.", "occurred_at": "2024-02-01T09:00:00Z"},
    )
    seattle = visible(server, "bank-a", "Where does Alice live?", "Alice moved to Seattle.")
    path = f"/v1/banks/bank-a/memories/{seattle['id']}"
    eventually(lambda: server.get(path, headers=AUTH).json()["edges"]["supersedes"], "supersession")
    visible(server, "bank-a", "Alice bees roof", "Alice keeps bees on the roof.")
    return seattle


def test_retained_memories_become_recallable_current_state(
    server: Server, alice: dict[str, Any]
) -> None:
    body = server.recall("bank-a", "Where does Alice live?", explain=True)
    texts = [r["text"] for r in body["results"]]
    assert texts[0] == "Alice moved to Seattle." and "Alice lives in Boston." not in texts
    assert body["results"][0]["state"] == "current"
    assert body["explain"] and body["timings"] and "timings_ms" not in body
    assert None not in body.values(), "an answer carries no nulls: an absent field is its default"
    stages = [s["stage"] for s in body["explain"]]
    assert stages[-6:] == DEFAULT_STAGES[-6:]
    history = server.recall("bank-a", "Where does Alice live?", state_mode="history")
    states = {r["text"]: r["state"] for r in history["results"]}
    assert states["Alice lives in Boston."] == "superseded"


def test_token_is_required_except_for_health(server: Server) -> None:
    path = "/v1/banks/bank-a/recall"
    assert server.post(path, {"query": "Alice"}).status_code == 401
    wrong = server.post(path, {"query": "Alice"}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.json()["error"] == "unauthorized"
    health = server.get("/healthz")
    assert (health.status_code, health.json()) == (
        200,
        {"store": "ok", "redis": "ok", "broker": "ok"},
    )


def test_validation_errors_name_the_field(server: Server) -> None:
    item = {"text": "naive", "occurred_at": "2024-01-01T09:00:00"}
    r = server.post("/v1/banks/bank-a/memories", {"items": [item]}, headers=AUTH)
    assert r.status_code == 422
    [detail] = r.json()["detail"]
    assert detail["field"] == "body.items.0.occurred_at" and "timezone" in detail["problem"]
    big = {"items": [{"text": "x" * 1000, "occurred_at": "2024-01-01T09:00:00Z"}] * 70}
    r = server.post("/v1/banks/bank-a/memories", big, headers=AUTH)
    assert r.status_code == 413 and r.json()["error"] == "too_large"


def test_bank_isolation(server: Server, alice: dict[str, Any]) -> None:
    retain(server, "bank-b", {"text": "Bob likes tea.", "occurred_at": "2024-01-01T09:00:00Z"})
    visible(server, "bank-b", "Bob tea", "Bob likes tea.")
    for query in ("Where does Alice live?", "Alice Seattle bees"):
        assert all("Alice" not in r["text"] for r in server.recall("bank-b", query)["results"])
    assert server.get(f"/v1/banks/bank-b/memories/{alice['id']}", headers=AUTH).status_code == 404
    vote = {"memory_id": alice["id"], "vote": "down"}
    assert server.post("/v1/banks/bank-b/feedback", vote, headers=AUTH).status_code == 404


def test_unrelated_results_are_left_out_unless_asked_for(
    server: Server, alice: dict[str, Any]
) -> None:
    """Nothing in bank-a is about Paris: the served recall leaves Alice's memories out
    and says how many; `all` or a `min_score` of the caller's own shows them."""
    ruled = server.recall("bank-a", "Paris")
    assert ruled["results"] == [] and ruled["without_evidence"] > 0
    every = server.recall("bank-a", "Paris", all=True)["results"]
    assert len(every) == ruled["without_evidence"] and all("Alice" in r["text"] for r in every)
    assert server.recall("bank-a", "Paris", min_score=1e-6)["results"] == every


def test_vote_is_applied_by_the_worker(server: Server, alice: dict[str, Any]) -> None:
    vote = {"memory_id": alice["id"], "vote": "up", "event_id": str(uuid.uuid4())}
    for _ in range(2):
        assert server.post("/v1/banks/bank-a/feedback", vote, headers=AUTH).status_code == 202
    path = f"/v1/banks/bank-a/memories/{alice['id']}"

    def counted() -> dict[str, Any] | None:
        view = server.get(path, headers=AUTH).json()
        return view if view["memory"]["votes_up"] >= 1 else None

    view = eventually(counted, "the vote to be counted")
    assert view["memory"]["votes_up"] == 1
    assert view["edges"]["supersedes"][0]["text"] == "Alice lives in Boston."


def test_last_recall_by_session(server: Server, alice: dict[str, Any]) -> None:
    body = server.recall("bank-a", "Alice", session_key="chat-9", state_mode="history")
    ids = [r["id"] for r in body["results"]]
    assert len(ids) >= 2
    r = server.get("/v1/banks/bank-a/last-recall", params={"session_key": "chat-9"}, headers=AUTH)
    assert r.status_code == 200 and [x["id"] for x in r.json()["results"]] == ids
    args = ["last-recall", "--bank", "bank-a", "--session", "chat-9", "--json"]
    cli = subprocess.run(
        [sys.executable, "-m", "sediment.cli", *args],
        env=server.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert [x["id"] for x in json.loads(cli.stdout)["results"]] == ids
    mark = {"session_key": "chat-9", "useful_ids": [ids[0]]}
    r = server.post("/v1/banks/bank-a/feedback/last-recall", mark, headers=AUTH)
    assert r.status_code == 202 and r.json()["marked_not_useful"] == len(ids) - 1

    def marked() -> bool:
        view = server.get(f"/v1/banks/bank-a/memories/{ids[1]}", headers=AUTH).json()
        return bool(view["memory"]["not_useful"] == 1)

    eventually(marked, "not-useful marks to be counted")


def test_slow_log_covers_worker_store_and_recall_without_content(
    server: Server, alice: dict[str, Any]
) -> None:
    """With a threshold of 0.01 ms everything is slow: each kind of call is logged."""
    db = redis.Redis.from_url(REDIS_URL)

    def operations() -> set[str]:
        return {f[b"operation"].decode() for _, f in db.xrange("sediment:slow")}

    wanted = {"recall", "api.retain", "worker.retain_batch", "store.upsert", "store.search_hybrid"}
    eventually(lambda: wanted <= operations(), f"slow entries for {wanted}")
    raw = b" ".join(v for _, f in db.xrange("sediment:slow") for v in f.values())
    for secret in (b"Alice", b"Seattle", b"Boston", b"bees", b"Where"):
        assert secret not in raw
    retained = [
        f for _, f in db.xrange("sediment:slow") if f[b"operation"] == b"worker.retain_batch"
    ]
    assert any(f[b"bank"] == b"bank-a" and b'"events":3' in f[b"sizes"] for f in retained)


def test_empty_token_stops_serve_at_start(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "sediment.cli", "serve", "--port", str(free_port())],
        env={**os.environ, "SEDIMENT_API_TOKEN": "", "SEDIMENT_DATA_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert "invalid setting SEDIMENT_API_TOKEN: SEDIMENT_API_TOKEN is set but empty" in run.stderr


def test_openapi_is_served(server: Server) -> None:
    schema = server.get("/openapi.json").json()
    assert "/v1/banks/{bank_id}/recall" in schema["paths"]
    assert "bearer" in json.dumps(schema["components"]["securitySchemes"]).lower()


def test_embedded_serve_consumes_its_own_events(tmp_path: Path) -> None:
    """Embedded: no Redis at all; the API process consumes Celery's in-memory queue."""
    env = {**os.environ, "SEDIMENT_MODE": "embedded", "SEDIMENT_REDIS_URL": "redis://127.0.0.1:1/0"}
    env.pop("SEDIMENT_API_TOKEN", None)
    with running(env, tmp_path) as srv:
        item = {"text": "Zed likes jazz.", "occurred_at": "2024-01-01T00:00:00Z"}
        assert srv.post("/v1/banks/z/memories", {"items": [item]}).status_code == 202
        shown = visible(srv, "z", "Zed jazz", "Zed likes jazz.")
        vote = {"memory_id": shown["id"], "vote": "up"}
        assert srv.post("/v1/banks/z/feedback", vote).status_code == 202
        path = f"/v1/banks/z/memories/{shown['id']}"
        eventually(lambda: srv.get(path).json()["memory"]["votes_up"] == 1, "the vote")


@contextmanager
def own_redis(port: int) -> Iterator[subprocess.Popen[bytes]]:
    """A volatile redis-server of this test's own on `port` (never the shared one)."""
    volatile = ("--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), *volatile],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        client = redis.Redis(port=port, socket_connect_timeout=1)

        def pings() -> bool:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                return False

        eventually(pings, f"redis-server on port {port}", timeout=30)
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_redis_down_is_503_with_retry_after_and_the_export_is_whole_or_nothing(
    tmp_path: Path,
) -> None:
    """Standalone serve on a Redis of its own: stopped, every route that needs it says
    503 and when to retry (the export sends nothing, not events without their
    tombstones); started again, the export comes back whole, trailer included."""
    port = free_port()
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",
        "SEDIMENT_REDIS_URL": f"redis://127.0.0.1:{port}/0",
        "SEDIMENT_API_TOKEN": TOKEN,
    }
    paths = ["/v1/banks/down/export", "/v1/banks/down/audit", "/v1/stats", "/metrics"]
    with own_redis(port) as first, running(env, tmp_path) as srv:
        item = {"text": "Ivo grows tomatoes.", "occurred_at": "2024-01-01T00:00:00Z"}
        retain(srv, "down", item)
        visible(srv, "down", "Ivo tomatoes", "Ivo grows tomatoes.")
        first.terminate()
        first.wait(timeout=30)
        for path in paths:
            r = srv.get(path, headers=AUTH)
            assert r.status_code == 503, (path, r.text)
            assert int(r.headers["retry-after"]) > 0 and r.json()["error"] == "unavailable"
            assert "Ivo" not in r.text
        with own_redis(port):
            r = srv.get("/v1/banks/down/export", headers=AUTH)
            assert r.status_code == 200, r.text
            trailer = json.loads(r.text.splitlines()[-1])
            assert trailer["counts"] == {"retain": 1, "tombstone": 0}


def test_a_recall_waiting_for_its_own_writes_sees_them(server: Server) -> None:
    """Read-your-writes: recall with the retain's event ids as `wait_for` runs once the
    worker has consolidated them; the bank's status shows nothing pending then."""
    text = "Wren keeps bees on the roof."
    [event] = retain(server, "ryw", {"text": text, "occurred_at": "2024-03-01T10:00:00Z"})
    body = server.recall("ryw", "Wren bees", wait_for=[event], wait_timeout_s=30)
    assert [r["text"] for r in body["results"]] == [text]
    assert body["pending_events"] == [] and body["pending"] == 0
    status = server.get("/v1/banks/ryw/status", headers=AUTH).json()
    assert status["pending"] == 0 and status["memories"] == 1
    assert status["consolidated_through"]
    old = server.post(
        "/v1/banks/ryw/recall", {"query": "Wren", "state_mode": "history"}, headers=AUTH
    )
    assert old.status_code == 200 and old.headers["deprecation"] == "true"
