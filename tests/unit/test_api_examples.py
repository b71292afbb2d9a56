"""The OpenAPI document shows an example of each data endpoint (retain, recall, forget,
export, audit), and every request example is accepted as it stands."""

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from contracts.events import RetainEvent
from contracts.forget import Tombstone
from sediment.api.data_routes import AuditPage
from sediment.api.examples import FORGET_EVENT_ID
from sediment.transfer import import_lines
from tests.unit.api_support import Api, RecordingPublisher, open_api

ROUTES = {
    ("post", "/v1/banks/{bank_id}/memories"): 202,
    ("post", "/v1/banks/{bank_id}/recall"): 200,
    ("post", "/v1/banks/{bank_id}/forget"): 202,
}


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from open_api(tmp_path)


def request_examples(schema: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    body = schema["paths"][path][method]["requestBody"]["content"]["application/json"]
    examples: dict[str, Any] = body["examples"]
    return examples


@pytest.mark.parametrize(("method", "path"), list(ROUTES))
def test_every_request_example_is_accepted(api: Api, method: str, path: str) -> None:
    schema = api.client.get("/openapi.json").json()
    examples = request_examples(schema, method, path)
    assert len(examples) >= 2
    named = RetainEvent(
        event_id=FORGET_EVENT_ID,
        bank_id="b1",
        text="Alice keeps a diary.",
        occurred_at=datetime(2024, 5, 1, tzinfo=UTC),
    )
    api.rt.publisher.publish_retain([named])  # the memory the forget examples name
    for name, example in examples.items():
        r = api.client.request(method, path.format(bank_id="b1"), json=example["value"])
        assert r.status_code == ROUTES[(method, path)], (name, r.text)


def test_export_and_audit_show_what_they_answer(api: Api) -> None:
    paths = api.client.get("/openapi.json").json()["paths"]
    export = paths["/v1/banks/{bank_id}/export"]["get"]["responses"]["200"]["content"]
    lines = export["application/x-ndjson"]["example"].splitlines()
    header, *rows = [json.loads(line) for line in lines]
    assert header["format"] == "sediment-export"
    assert [r["type"] for r in rows] == ["retain", "tombstone", "trailer"]
    assert import_lines(RecordingPublisher(), lines).events == 1
    RetainEvent.model_validate(rows[0]["event"])
    Tombstone.model_validate(rows[1]["tombstone"])
    audit = paths["/v1/banks/{bank_id}/audit"]["get"]["responses"]["200"]["content"]
    page = AuditPage.model_validate(audit["application/json"]["example"])
    assert page.entries[0].action == "retain"
    assert {"403"} <= set(paths["/v1/banks/{bank_id}/audit"]["get"]["responses"])
