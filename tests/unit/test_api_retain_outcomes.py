"""What POST .../memories answers: `queued` with the event ids where a worker
consolidates later; where the publisher consolidates before the answer, what became of
each item (the memory stored, what it superseded)."""

from pathlib import Path

from fastapi.testclient import TestClient

from contracts.memory import derive_memory_id
from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.memory_ids import short
from tests.unit.api_support import Api, open_api, seeded_runtime


def test_a_queued_retain_answers_queued_with_its_event_ids(tmp_path: Path) -> None:
    for api in open_api(tmp_path):
        assert isinstance(api, Api)
        item = {"text": "Dana swims.", "occurred_at": "2024-01-01T00:00:00Z"}
        r = api.client.post("/v1/banks/b1/memories", json={"items": [item]})
        assert r.status_code == 202
        body = r.json()
        assert body["status"] == "queued" and len(body["event_ids"]) == 1
        assert "outcomes" not in body


def test_a_consolidated_retain_says_what_it_stored_and_superseded(tmp_path: Path) -> None:
    rt = seeded_runtime(tmp_path)
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=rt.publisher,
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_token=None,
    )
    home = {"text": "Zoe lives in Rome.", "key": "zoe.city", "occurred_at": "2024-01-01T00:00:00Z"}
    moved = {
        "text": "Zoe moved to Milan.",
        "key": "zoe.city",
        "occurred_at": "2024-03-01T00:00:00Z",
    }
    with TestClient(create_app(deps)) as client:
        first = client.post("/v1/banks/b1/memories", json={"items": [home]}).json()
        assert first["status"] == "consolidated"
        [stored] = first["outcomes"]
        assert stored["memory_id"] == str(derive_memory_id("b1", stored["event_id"]))
        assert stored["said"] == f"stored {short(derive_memory_id('b1', stored['event_id']))}"
        second = client.post("/v1/banks/b1/memories", json={"items": [moved]}).json()
        [newer] = second["outcomes"]
        assert newer["supersedes"] == [stored["memory_id"]]
        assert f"superseded {stored['memory_id'][:6]}" in newer["said"]
    rt.close()
