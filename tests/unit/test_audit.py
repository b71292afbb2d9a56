"""The audit stream: one entry per accepted change (retain batch, forget, vote, import,
export), naming the caller (key name, `token`, `local`, `cli`), with ids and counts and
never the memory's text; `GET /v1/banks/{bank}/audit` needs the admin scope."""

import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import fakeredis
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from contracts.audit import MAX_AUDIT_IDS, AuditEntry
from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.api.keys import ApiKey, digest
from sediment.auditing import AuditedPublisher, Auditor, acting_as
from sediment.forgetting import forget_event
from sediment.transfer import import_lines
from telemetry.audit_log import AuditLog, FileAuditLog, RedisAuditLog
from tests.helpers import T0, event
from tests.unit.api_support import BOSTON, RecordingPublisher, mid, seeded_runtime
from worker.tombstones import MemoryTombstones

MARKER = "zq-audit-marker-7f3e"


def entry(bank: str, n: int) -> AuditEntry:
    return AuditEntry(at=T0 + timedelta(seconds=n), bank_id=bank, actor="cli", action="retain")


@pytest.fixture(params=["redis", "file"])
def log(request: pytest.FixtureRequest, tmp_path: Path) -> AuditLog:
    if request.param == "redis":
        return RedisAuditLog(fakeredis.FakeRedis(), 10)
    return FileAuditLog(tmp_path / "audit.jsonl", 10)


def test_a_log_reads_its_banks_entries_newest_first(log: AuditLog) -> None:
    ids = [log.append(entry("b1", n)) for n in range(3)]
    log.append(entry("b2", 9))
    got = log.read("b1")
    assert [e.id for e in got] == ids[::-1]
    assert [e.at for e in got] == [T0 + timedelta(seconds=n) for n in (2, 1, 0)]
    assert [e.bank_id for e in log.read("b2")] == ["b2"]
    assert len(log.read("b1", limit=2)) == 2


def test_the_file_log_is_capped_and_a_later_process_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    first = FileAuditLog(path, 10)
    for n in range(30):
        first.append(entry("b1", n))
    later = FileAuditLog(path, 10)
    kept = later.read("b1", limit=100)
    assert 10 <= len(kept) <= 11 and kept[0].at == T0 + timedelta(seconds=29)
    assert later.append(entry("b1", 99)) > str(kept[0].id)


def test_the_publisher_records_what_it_accepted_by_whom() -> None:
    log = RedisAuditLog(fakeredis.FakeRedis(), 100)
    inner = RecordingPublisher()
    publisher = AuditedPublisher(inner, Auditor(log, "cli"))
    events = [event(f"{MARKER} {i}", i) for i in range(MAX_AUDIT_IDS + 5)]
    publisher.publish_retain([*events, event(MARKER, 0, bank="b2")])
    with acting_as("team-agent"):
        publisher.publish_forget([forget_event("b1", memory_ids=[mid(events[0])])])
    inner.failing = True
    with pytest.raises(Exception, match="ConnectionError"):
        publisher.publish_retain([event("lost", 0)])
    forgot, retained = log.read("b1")
    assert (retained.actor, retained.action, retained.counts) == ("cli", "retain", {"events": 105})
    assert retained.event_ids == [e.event_id for e in events[:MAX_AUDIT_IDS]]
    assert (forgot.actor, forgot.action, forgot.memory_ids) == (
        "team-agent",
        "forget",
        [mid(events[0])],
    )
    assert [e.counts for e in log.read("b2")] == [{"events": 1}]


def test_an_import_is_recorded_as_import(tmp_path: Path) -> None:
    log = FileAuditLog(tmp_path / "audit.jsonl", 100)
    publisher = AuditedPublisher(RecordingPublisher(), Auditor(log, "cli")).recording("import")
    header = {
        "format": "sediment-export",
        "version": 1,
        "bank": "b1",
        "exported_at": T0.isoformat(),
    }
    row = {"type": "retain", "event": BOSTON.model_dump(mode="json")}
    import_lines(publisher, [json.dumps(header), json.dumps(row)], "b9", check_trailer=False)
    [done] = log.read("b9")
    assert (done.action, done.counts, done.event_ids) == (
        "import",
        {"events": 1},
        [BOSTON.event_id],
    )


KEYS = [
    ApiKey(name="reader", sha256=digest("r-secret"), banks=("b1",), scopes=("read",)),
    ApiKey(name="team-agent", sha256=digest("w-secret"), banks=("b*",), scopes=("write",)),
    ApiKey(name="eraser", sha256=digest("f-secret"), banks=("b1",), scopes=("forget",)),
    ApiKey(name="ops", sha256=digest("a-secret"), banks=("*",), scopes=("admin",)),
]


def bearer(secret: str, rid: str | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}", **({"X-Request-ID": rid} if rid else {})}


def app_client(tmp_path: Path, token: str | None, keys: list[ApiKey]) -> Iterator[TestClient]:
    rt = seeded_runtime(tmp_path)
    auditor = Auditor(RedisAuditLog(fakeredis.FakeRedis(), 1000), "cli")
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=AuditedPublisher(RecordingPublisher(), auditor),
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_token=SecretStr(token) if token else None,
        api_keys=tuple(keys),
        auditor=auditor,
        tombstones=MemoryTombstones(),
    )
    with TestClient(create_app(deps)) as c:
        yield c
    rt.close()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from app_client(tmp_path, "admin-token", KEYS)


RETAIN = {"items": [{"text": f"Alice's PIN is {MARKER}.", "occurred_at": "2024-01-01T00:00:00Z"}]}


def test_api_changes_are_audited_under_the_key_that_made_them(client: TestClient) -> None:
    r = client.post("/v1/banks/b1/memories", json=RETAIN, headers=bearer("w-secret", "req-1"))
    assert r.status_code == 202
    [event_id] = r.json()["event_ids"]
    r = client.delete(f"/v1/banks/b1/memories/{mid(BOSTON)}", headers=bearer("f-secret"))
    assert r.status_code == 202
    vote = {"memory_id": str(mid(BOSTON)), "vote": "up"}
    r = client.post("/v1/banks/b1/feedback", json=vote, headers=bearer("admin-token"))
    assert r.status_code == 202
    r = client.get("/v1/banks/b1/audit", headers=bearer("a-secret"))
    assert r.status_code == 200 and MARKER not in r.text
    voted, forgot, retained = r.json()["entries"]
    assert (retained["actor"], retained["action"]) == ("team-agent", "retain")
    assert retained["event_ids"] == [event_id] and retained["request_id"] == "req-1"
    assert (forgot["actor"], forgot["action"]) == ("eraser", "forget")
    assert forgot["memory_ids"] == [str(mid(BOSTON))] and forgot["counts"] == {"memory_ids": 1}
    assert (voted["actor"], voted["action"], voted["counts"]) == ("token", "feedback", {"votes": 1})


def test_the_audit_route_needs_the_admin_scope(client: TestClient) -> None:
    r = client.get("/v1/banks/b1/audit", headers=bearer("r-secret"))
    assert r.status_code == 403 and "'admin'" in r.json()["message"]
    assert client.get("/v1/banks/b1/audit", headers=bearer("w-secret")).status_code == 403
    assert client.get("/v1/banks/b1/audit").status_code == 401
    assert client.get("/v1/banks/b1/audit?limit=0", headers=bearer("a-secret")).status_code == 422


def test_export_streams_the_bank_and_is_audited(client: TestClient) -> None:
    assert client.get("/v1/banks/b1/export", headers=bearer("r-secret")).status_code == 403
    r = client.get("/v1/banks/b1/export", headers=bearer("a-secret"))
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    header, *rows, trailer = [json.loads(line) for line in r.text.splitlines()]
    assert header["format"] == "sediment-export" and header["bank"] == "b1"
    assert trailer["type"] == "trailer" and trailer["counts"] == {
        "retain": len(rows),
        "tombstone": 0,
    }
    assert {row["event"]["text"] for row in rows} >= {"Alice lives in Boston."}
    [exported] = client.get("/v1/banks/b1/audit", headers=bearer("a-secret")).json()["entries"]
    assert (exported["actor"], exported["action"]) == ("ops", "export")
    assert exported["counts"] == {"events": len(rows), "tombstones": 0}


def test_an_open_api_audits_its_callers_as_local(tmp_path: Path) -> None:
    for c in app_client(tmp_path, None, []):
        assert c.post("/v1/banks/b1/memories", json=RETAIN).status_code == 202
        [entry] = c.get("/v1/banks/b1/audit").json()["entries"]
        assert entry["actor"] == "local" and uuid.UUID(entry["event_ids"][0])
