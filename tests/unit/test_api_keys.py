"""Scoped API keys: unknown key 401; a known key without the scope or the bank 403,
naming what is missing; SEDIMENT_API_TOKEN stays an admin key on every bank."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from sediment.api.app import create_app
from sediment.api.auth import required
from sediment.api.deps import ApiDeps
from sediment.api.keys import ApiKey, digest, load_keys
from tests.unit.api_support import BOSTON, RecordingPublisher, mid, seeded_runtime

KEYS = [
    ApiKey(name="reader", sha256=digest("r-secret"), banks=("b1",), scopes=("read",)),
    ApiKey(name="team", sha256=digest("t-secret"), banks=("b*",), scopes=("read", "write")),
    ApiKey(name="eraser", sha256=digest("f-secret"), banks=("b1",), scopes=("forget",)),
]


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    rt = seeded_runtime(tmp_path)
    path = tmp_path / "keys.json"
    path.write_text(json.dumps([k.model_dump(mode="json") for k in KEYS]))
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=RecordingPublisher(),
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_token=SecretStr("admin-token"),
        api_keys=load_keys(path),
    )
    with TestClient(create_app(deps)) as c:
        yield c
    rt.close()


RECALL = {"query": "where does Alice live"}
RETAIN = {"items": [{"text": "Alice likes tea.", "occurred_at": "2024-01-01T00:00:00Z"}]}


def test_unknown_or_missing_key_is_401(client: TestClient) -> None:
    assert client.post("/v1/banks/b1/recall", json=RECALL).status_code == 401
    r = client.post("/v1/banks/b1/recall", json=RECALL, headers=bearer("nope"))
    assert r.status_code == 401


def test_scope_and_bank_are_checked_with_a_message(client: TestClient) -> None:
    reader, team, eraser = bearer("r-secret"), bearer("t-secret"), bearer("f-secret")
    assert client.post("/v1/banks/b1/recall", json=RECALL, headers=reader).status_code == 200
    r = client.post("/v1/banks/b1/memories", json=RETAIN, headers=reader)
    assert r.status_code == 403 and "lacks the 'write' scope" in r.json()["message"]
    r = client.post("/v1/banks/b2/recall", json=RECALL, headers=reader)
    assert r.status_code == 403 and "does not open bank 'b2'" in r.json()["message"]
    assert client.post("/v1/banks/b2/memories", json=RETAIN, headers=team).status_code == 202
    r = client.delete(f"/v1/banks/b1/memories/{mid(BOSTON)}", headers=team)
    assert r.status_code == 403 and "'forget'" in r.json()["message"]
    assert client.delete(f"/v1/banks/b1/memories/{mid(BOSTON)}", headers=eraser).status_code == 202
    r = client.get("/v1/stats", headers=team)
    assert r.status_code == 403 and "'metrics'" in r.json()["message"]


def test_the_token_is_an_admin_key_on_every_bank(client: TestClient) -> None:
    admin = bearer("admin-token")
    assert client.post("/v1/banks/zz/recall", json=RECALL, headers=admin).status_code == 200
    assert client.delete("/v1/banks/zz", headers=admin).status_code == 202
    assert client.get("/v1/stats", headers=admin).status_code == 200
    assert client.get("/healthz").status_code in (200, 503)


@pytest.mark.parametrize(
    ("method", "path", "need"),
    [
        ("POST", "/v1/banks/a/recall", ("read", "a")),
        ("GET", "/v1/banks/a/memories/x", ("read", "a")),
        ("POST", "/v1/banks/a/memories", ("write", "a")),
        ("POST", "/v1/banks/a/feedback", ("write", "a")),
        ("DELETE", "/v1/banks/a/memories/x", ("forget", "a")),
        ("POST", "/v1/banks/a/forget", ("forget", "a")),
        ("DELETE", "/v1/banks/a", ("forget", "a")),
        ("GET", "/v1/stats", ("metrics", None)),
        ("GET", "/metrics", ("metrics", None)),
        ("POST", "/mcp", None),
        ("GET", "/dashboard", None),
        ("GET", "/dashboard/assets/dashboard.js", None),
        ("GET", "/healthz", None),
    ],
)
def test_what_each_request_needs(method: str, path: str, need: object) -> None:
    assert required(method, path) == need


def test_a_bad_keys_file_names_the_variable(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text('[{"name": "x", "sha256": "short", "banks": ["*"], "scopes": ["read"]}]')
    with pytest.raises(ValueError, match="SEDIMENT_API_KEYS_FILE"):
        load_keys(path)
