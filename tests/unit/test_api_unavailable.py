"""Redis unreachable is 503 with `Retry-After` on every route that needs it, never a
500 nor an export cut short: the app's metrics, recall logs, audit log and tombstones
are on a Redis at a closed port, and its publisher refuses like a dead broker."""

from collections.abc import Iterator

import pytest
import redis
from fastapi.testclient import TestClient

from readmodel.recall.recaller import Recaller
from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.api.problems import RETRY_AFTER_S
from sediment.auditing import Auditor
from telemetry.audit_log import RedisAuditLog
from telemetry.recall_logs import RedisRecallLog
from telemetry.redis_series import RedisMetrics
from tests.helpers import mid
from tests.unit.api_support import BOSTON, RecordingPublisher, seeded_runtime
from worker.tombstones import RedisTombstones

CLOSED_PORT = "redis://127.0.0.1:1/0"
ITEM = {"text": "Dana moved to Porto.", "occurred_at": "2024-05-01T09:00:00Z"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    rt = seeded_runtime(tmp_path_factory.mktemp("down"))
    down = redis.Redis.from_url(CLOSED_PORT, socket_connect_timeout=1, socket_timeout=1)
    log = RedisRecallLog(down, 100, 100, 60)
    publisher = RecordingPublisher(failing=True)
    deps = ApiDeps(
        service=Recaller(rt.recall_pipeline, rt.store, log, rt.settings.recall_slow_ms),
        store=rt.store,
        publisher=publisher,
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        health={"store": lambda: True, "redis": lambda: bool(down.ping())},
        metrics=RedisMetrics(down, 3600),
        recall_log=log,
        auditor=Auditor(RedisAuditLog(down, 100), "api"),
        tombstones=RedisTombstones(down),
    )
    with TestClient(create_app(deps)) as c:
        yield c
    rt.close()


MARK = {"session_key": "s-1", "useful_ids": [str(mid(BOSTON))]}
ROUTES = [
    ("GET", "/v1/stats", None),
    ("GET", "/metrics", None),
    ("GET", "/v1/banks/b1/audit", None),
    ("GET", "/v1/banks/b1/export", None),
    ("GET", "/v1/banks/b1/last-recall?session_key=s-1", None),
    ("POST", "/v1/banks/b1/feedback/last-recall", MARK),
    ("POST", "/v1/banks/b1/memories", {"items": [ITEM]}),
    ("POST", "/v1/banks/b1/feedback", {"memory_id": str(mid(BOSTON)), "vote": "up"}),
    ("POST", "/v1/banks/b1/forget", {"all_memories": True}),
    ("DELETE", f"/v1/banks/b1/memories/{mid(BOSTON)}", None),
    ("DELETE", "/v1/banks/b1/memories?tag=x", None),
    ("DELETE", "/v1/banks/b1", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_a_route_that_needs_redis_answers_503_with_retry_after(
    client: TestClient, method: str, path: str, body: object
) -> None:
    r = client.request(method, path, json=body)
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == str(RETRY_AFTER_S)
    assert r.json()["error"] == "unavailable"
    assert "retry" in r.json()["message"]
    assert r.headers["x-request-id"]


def test_the_export_refuses_before_its_first_line(client: TestClient) -> None:
    """Nothing of the bank is sent when its tombstones cannot be read: a client never
    gets events without the tombstones that must come with them."""
    r = client.get("/v1/banks/b1/export")
    assert r.status_code == 503
    assert "sediment-export" not in r.text and "Alice" not in r.text
    assert "Redis is unreachable (ConnectionError)" in r.json()["message"]


def test_healthz_says_which_component_failed_and_when_to_ask_again(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 503 and r.json()["redis"] == "failed"
    assert r.headers["retry-after"] == str(RETRY_AFTER_S)


def test_recall_still_answers_without_its_logs(client: TestClient) -> None:
    """The recall logs are best effort: recall reads the store, not Redis."""
    r = client.post("/v1/banks/b1/recall", json={"query": "Where does Alice live?"})
    assert r.status_code == 200, r.text
    assert r.json()["results"]
